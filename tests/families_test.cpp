// The families as the runner sees them, on the CPU: the buffers a case is
// handed refuse another type than it declares, and every default case whose
// define plans without a device (its kernel's grid does not depend on the
// device's occupancy) is defined for a made-up H200, its work and model
// checked: every counter it reports has a meaning in the catalog, its
// buffers are sized by its types, and a few families' bytes are worked out
// here again from their axes.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "cases/case.hpp"
#include "cases/counters.hpp"
#include "cases/family.hpp"
#include "membench/platform/cuda.hpp"

namespace membench::cases {
namespace {

TEST(CaseBuffers, HandOutTheDeclaredTypesAndTheBytesOfAnyAndRefuseTheRest) {
  float in[4];
  double out[2];
  const CaseBuffers b(in, Element::f32, out, Element::f64);
  EXPECT_EQ(b.input<float>(), in);
  EXPECT_EQ(b.output<double>(), out);
  EXPECT_EQ(b.input_to_fill<float>(), in);
  EXPECT_EQ(static_cast<const void*>(b.input<std::byte>()), static_cast<const void*>(in));
  EXPECT_EQ(static_cast<void*>(b.output<std::byte>()), static_cast<void*>(out));
  EXPECT_THROW(b.input<double>(), std::logic_error);
  EXPECT_THROW(b.output<float>(), std::logic_error);
  EXPECT_THROW(b.input<std::uint32_t>(), std::logic_error);
  const CaseBuffers chain(in, Element::u64, out, Element::f64);
  EXPECT_NO_THROW(chain.input_to_fill<std::uint64_t>());
  EXPECT_THROW(chain.input_to_fill<std::uint32_t>(), std::logic_error);
  EXPECT_THROW(chain.input<double>(), std::logic_error);  // a chain's words are no doubles
}

DeviceInfo made_up_h200() {
  DeviceInfo d;
  d.name = "NVIDIA H200 (made up for the test)";
  d.cc_major = 9;
  d.sm_count = 132;
  d.l2_bytes = 60u << 20;
  d.global_mem_bytes = std::size_t{141} << 30;
  d.smem_per_block_optin = 227u << 10;
  d.smem_per_sm = 228u << 10;
  d.l1_bytes = 256u << 10;
  d.mem_clock_khz = 3201000;
  d.bus_width_bits = 6016;
  d.sm_clock_khz = 1980000;
  d.dram_peak_bytes_per_second = dram_peak_bytes_per_second(d.mem_clock_khz, d.bus_width_bits);
  d.smem_peak_bytes_per_second = smem_peak_bytes_per_second(d.sm_count, d.sm_clock_khz, d.cc_major, d.cc_minor);
  return d;
}

struct Defined {
  CaseSpec spec;
  CaseDefinition def;
};

// Every default case a define makes with no device: the rest plan against
// the device (their grid is its resident grid) or allocate on it.
const std::map<std::string, Defined>& defined_without_a_device() {
  static const std::map<std::string, Defined> defined = [] {
    Selection s;
    s.values = [](const std::string&, const AxisSpec& axis) { return axis.defaults; };
    const DeviceInfo gpu = made_up_h200();
    std::map<std::string, Defined> out;
    for (const CaseSpec& c : enumerate_cases(s)) {
      try {
        out.emplace(c.id.name(), Defined{c, c.define(CaseArgs(c.id, gpu))});
      } catch (const CudaError&) {
        // plans or allocates on the device
      } catch (const CaseSkipped&) {
        // not on this (made-up) GPU
      }
    }
    return out;
  }();
  return defined;
}

// With a device visible the defines would allocate and fill every case's
// buffers at once; ctest runs these tests with the device hidden.
class FamiliesOnTheCpu : public ::testing::Test {
 protected:
  void SetUp() override {
    int visible = 0;
    if (cudaGetDeviceCount(&visible) == cudaSuccess && visible > 0)
      GTEST_SKIP() << "runs with no device visible (ctest sets CUDA_VISIBLE_DEVICES=-1)";
  }
};

TEST_F(FamiliesOnTheCpu, ManyFamiliesDefineTheirCasesWithoutADevice) {
  std::set<std::string> families;
  for (const auto& [name, d] : defined_without_a_device()) families.insert(d.spec.id.family);
  // Enough of the house to be worth checking: the families whose plans need
  // no device (stream's elementwise kernels, global, layout, shared, ...).
  EXPECT_GE(defined_without_a_device().size(), 40u);
  EXPECT_GE(families.size(), 4u) << ::testing::PrintToString(families);
  EXPECT_TRUE(families.count("stream")) << ::testing::PrintToString(families);
}

TEST_F(FamiliesOnTheCpu, EveryCounterADefineReportsHasAMeaningAndEveryBufferItsType) {
  for (const auto& [name, d] : defined_without_a_device()) {
    SCOPED_TRACE(name);
    const Work& w = d.def.work;
    EXPECT_TRUE(w.bytes > 0 || w.dependent_loads > 0 || w.updates > 0) << "a case that reports no rate";
    for (const ModelCounter& m : w.model) {
      EXPECT_TRUE(counter_meaning(m.name).has_value()) << m.name << " has no meaning in the catalog";
      EXPECT_TRUE(std::isfinite(m.value)) << m.name;
    }
    EXPECT_TRUE(d.def.bind) << "no launch";
    if (d.def.input_elements > 0 && !d.def.fill) {
      EXPECT_TRUE(d.def.input_type == Element::f32 || d.def.input_type == Element::f64)
          << "an integer input the pattern cannot fill";
    }
    if (d.def.output_elements > 0) {
      EXPECT_TRUE(d.def.output_type == Element::f32 ? static_cast<bool>(d.def.expected)
                                                    : static_cast<bool>(d.def.expected_f64))
          << "an output with no reference of its type";
    }
  }
}

TEST_F(FamiliesOnTheCpu, EveryCopyOverTheHostLinkIsPacedByTheHost) {
  int checked = 0;
  for (const auto& [name, d] : defined_without_a_device()) {
    if (d.spec.id.family != "transfer") continue;
    EXPECT_TRUE(d.def.work.host_paced) << name;
    EXPECT_GT(d.def.work.bytes, 0) << name;
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no transfer case defined without a device";
}

TEST_F(FamiliesOnTheCpu, StreamsElementwiseCasesMoveWhatBabelStreamCounts) {
  int checked = 0;
  for (const auto& [name, d] : defined_without_a_device()) {
    if (d.spec.id.family != "stream") continue;
    const std::string& v = d.spec.id.variant;
    const double element = d.spec.id["type"] == 0 ? 4.0 : 8.0;
    const double n = static_cast<double>(d.spec.id["elements"]);
    const int arrays = v == "write" ? 1 : v == "copy" || v == "scale" ? 2 : v == "add" || v == "triad" ? 3 : -1;
    ASSERT_GT(arrays, 0) << name << ": a reduction planned without the device";
    SCOPED_TRACE(name);
    EXPECT_EQ(d.def.work.bytes, arrays * n * element);
    EXPECT_EQ(d.def.output_elements, static_cast<std::size_t>(n));
    EXPECT_EQ(d.def.output_type, d.def.input_type);
    std::map<std::string, double> model;
    for (const ModelCounter& m : d.def.work.model) model[m.name] = m.value;
    EXPECT_EQ(model.at("dram_write_bytes"), n * element);
    EXPECT_EQ(model.at("dram_read_bytes"), (arrays - 1) * n * element);
    ++checked;
  }
  EXPECT_EQ(checked, 10);  // write, copy, scale, add, triad in float and double
}

}  // namespace
}  // namespace membench::cases
