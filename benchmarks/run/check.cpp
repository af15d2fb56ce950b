#include "run/check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "cases/family.hpp"

namespace membench::run {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char* word(CaseVerdict::Kind kind) {
  switch (kind) {
    case CaseVerdict::Kind::within: return "ok";
    case CaseVerdict::Kind::better: return "better";
    case CaseVerdict::Kind::slow: return "SLOW";
    case CaseVerdict::Kind::contended: return "contended";
    case CaseVerdict::Kind::clock_event: return "clock-event";
    case CaseVerdict::Kind::noisy: return "noisy";
    case CaseVerdict::Kind::failed: return "FAILED";
    case CaseVerdict::Kind::not_run: return "not-run";
    case CaseVerdict::Kind::unmodelled: return "not-judged";
  }
  return "?";
}

// 0 within or better, 1 below or failed, 3 not judged.
int case_status(CaseVerdict::Kind kind) {
  using K = CaseVerdict::Kind;
  if (kind == K::within || kind == K::better) return kCheckHealthy;
  if (kind == K::slow || kind == K::failed) return kCheckUnhealthy;
  return kCheckInconclusive;
}

// Unhealthy over provisionally unhealthy over inconclusive over no
// reference over provisionally healthy over healthy.
int rank(int status) {
  switch (status) {
    case kCheckUnhealthy: return 5;
    case kCheckProvisionalUnhealthy: return 4;
    case kCheckInconclusive: return 3;
    case kCheckNoReference: return 2;
    case kCheckProvisionalHealthy: return 1;
    default: return 0;
  }
}

std::string label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return '"' + out + '"';
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

}  // namespace

namespace {

// What a name without the axis stands for, as a name holds it (a named
// axis: its label): the value the family's cases had before the axis was
// added, else its one default; empty where neither tells (several
// defaults), or the axis is not the family's.
std::optional<cases::CaseId::Axis> value_before(const std::string& family, const std::string& axis) {
  for (const cases::FamilySpec& f : cases::registered_families()) {
    if (f.name != family) continue;
    for (const cases::AxisSpec& a : f.axes) {
      if (a.name != axis || (!a.before && a.defaults.size() != 1)) continue;
      const std::int64_t v = a.before ? *a.before : a.defaults.front();
      if (a.names.empty()) return cases::CaseId::Axis{axis, v, ""};
      return cases::CaseId::Axis{axis, -1, a.names.at(static_cast<std::size_t>(v))};
    }
  }
  return std::nullopt;
}

}  // namespace

bool same_case(const cases::CaseId& recorded, const cases::CaseId& wanted) {
  if (recorded.family != wanted.family || recorded.variant != wanted.variant) return false;
  auto tags = recorded.tags;
  tags.erase(std::remove_if(tags.begin(), tags.end(), [](const auto& t) { return t.first == cases::kDeviceTag; }),
             tags.end());
  if (tags != wanted.tags) return false;
  const auto named = [](const std::vector<cases::CaseId::Axis>& axes, const std::string& name) {
    return std::find_if(axes.begin(), axes.end(), [&](const auto& a) { return a.name == name; });
  };
  for (const auto& a : recorded.axes)
    if (named(wanted.axes, a.name) == wanted.axes.end()) return false;
  for (const auto& w : wanted.axes) {
    if (const auto it = named(recorded.axes, w.name); it != recorded.axes.end()) {
      if (!(*it == w)) return false;
    } else if (const auto d = value_before(wanted.family, w.name); !d || !(*d == w)) {
      return false;
    }
  }
  return true;
}

bool names_case(const std::string& recorded, const std::string& today) {
  if (recorded == today) return true;
  const auto old = cases::CaseId::parse(recorded), now = cases::CaseId::parse(today);
  return old && now && same_case(*old, *now);
}

const std::vector<CheckCase>& check_cases() {
  static const std::vector<CheckCase> cases = [] {
    std::vector<std::pair<int, CheckCase>> ordered;
    for (const cases::FamilySpec& f : cases::registered_families())
      for (const cases::CheckDecl& c : f.downstream.check)
        ordered.push_back(
            {static_cast<int>(c.level), {cases::resolve(f, c.of).name(), cases::check_level_name(c.level), c.metric}});
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<CheckCase> out;
    for (auto& [order, c] : ordered) out.push_back(std::move(c));
    return out;
  }();
  return cases;
}

std::optional<Reference> provisional_reference(const std::vector<Reference>& references, const std::string& gpu_name) {
  Reference p;
  p.gpu_name = gpu_name;
  p.provisional = true;
  p.margin_pct = kProvisionalMarginPct;
  std::string models;
  for (const CheckCase& c : check_cases()) {
    std::optional<Band> joined;
    std::vector<double> medians;
    for (const Reference& r : references) {
      const auto it = std::find_if(r.bands.begin(), r.bands.end(),
                                   [&](const Band& b) { return b.efficiency && names_case(b.of.name, c.name); });
      if (it == r.bands.end()) continue;
      if (!joined) {
        joined = *it;
        joined->of = c;  // today's case, whatever the reference named it when its runs were made
        joined->runs = joined->gpus = 0;
      }
      medians.push_back(it->efficiency->median);
      joined->efficiency->low = std::min(joined->efficiency->low, it->efficiency->low);
      joined->efficiency->high = std::max(joined->efficiency->high, it->efficiency->high);
      joined->runs += it->runs;
      joined->gpus += it->gpus;
      if (models.find(r.gpu_name) == std::string::npos) models += (models.empty() ? "" : ", ") + r.gpu_name;
    }
    if (!joined) continue;
    joined->efficiency->median = median(medians);
    joined->efficiency->low *= 1 - kProvisionalMarginPct / 100;
    joined->efficiency->high *= 1 + kProvisionalMarginPct / 100;
    joined->median = joined->low = joined->high = 0;
    p.runs = std::max(p.runs, joined->runs);
    p.gpus = std::max(p.gpus, joined->gpus);
    p.bands.push_back(std::move(*joined));
  }
  if (p.bands.empty()) return std::nullopt;
  const std::size_t left = check_cases().size() - p.bands.size();
  p.origin = "provisional: this GPU's peaks x the efficiencies measured on the " + models + "; " +
             std::to_string(left) + " of the check's " + std::to_string(check_cases().size()) +
             " cases have no peak to judge by";
  return p;
}

int GpuVerdict::status() const {
  if (reference == nullptr) return kCheckNoReference;
  int worst = kCheckHealthy;
  int judged = 0;
  for (const CaseVerdict& c : cases) {
    if (c.kind == CaseVerdict::Kind::unmodelled) continue;
    int s = case_status(c.kind);
    if (reference->provisional && c.kind == CaseVerdict::Kind::slow) s = kCheckProvisionalUnhealthy;
    if (s == kCheckHealthy || c.kind == CaseVerdict::Kind::slow) ++judged;
    if (rank(s) > rank(worst)) worst = s;
  }
  if (!reference->provisional || worst != kCheckHealthy) return worst;
  // A provisional check that judged nothing has passed nothing.
  return judged > 0 ? kCheckProvisionalHealthy : kCheckInconclusive;
}

GpuVerdict judge(int ordinal, const std::string& name, const std::string& uuid, const Reference* reference,
                 const std::map<std::string, Observed>& observed) {
  using K = CaseVerdict::Kind;
  GpuVerdict v{ordinal, name, uuid, reference, {}};
  if (reference == nullptr) return v;
  for (const Band& band : reference->bands) {
    CaseVerdict c;
    c.band = &band;
    const auto it = observed.find(band.of.name);
    if (it == observed.end()) {
      c.kind = K::not_run;
      c.why = "not in this run";
    } else if (const Observed& o = it->second; !o.failed.empty()) {
      c.kind = K::failed;
      c.why = o.failed;
    } else if (o.values.empty() && reference->provisional && o.skipped) {
      // A model the reference's GPUs are not: a case its architecture cannot run is not judged.
      c.kind = K::unmodelled;
      c.why = o.not_run;
    } else if (o.values.empty()) {
      c.kind = K::not_run;
      c.why = o.not_run.empty() ? "no " + band.of.metric + " measured" : o.not_run;
    } else if (reference->provisional && o.pct_of_peak.empty()) {
      c.kind = K::unmodelled;
      c.why = "no peak on this GPU to judge it by";
    } else if (reference->provisional && o.peak_assumed) {
      c.kind = K::unmodelled;
      c.why = "its peak rests on an assumed architecture fact";
    } else {
      c.value = median(reference->provisional ? o.pct_of_peak : o.values);
      const double value = *c.value;
      // A provisional band is of pct_of_peak, higher better.
      const bool higher_better = reference->provisional || band.higher_better;
      // A host-paced case's band widens by the host's share of its noise, as the scripts' gates do.
      c.widened_pct = o.host_noise_pct;
      const double low = (reference->provisional ? band.efficiency->low : band.low) * (1 - c.widened_pct / 100);
      const double high = (reference->provisional ? band.efficiency->high : band.high) * (1 + c.widened_pct / 100);
      const bool worse = higher_better ? value < low : value > high;
      const bool better = higher_better ? value > high : value < low;
      if (worse && o.contended) {
        c.kind = K::contended;
        c.why = "another process used the GPU";
      } else if (worse && !o.clock_event.empty()) {
        c.kind = K::clock_event;
        c.why = o.clock_event;
      } else if (worse && !o.noisy.empty()) {
        c.kind = K::noisy;
        c.why = o.noisy;
      } else {
        c.kind = worse ? K::slow : better ? K::better : K::within;
      }
    }
    v.cases.push_back(std::move(c));
  }
  return v;
}

int check_status(const std::vector<GpuVerdict>& gpus) {
  int worst = kCheckHealthy;
  for (const GpuVerdict& g : gpus)
    if (rank(g.status()) > rank(worst)) worst = g.status();
  return worst;
}

std::string show_value(double value, const std::string& unit, double scale) {
  char buffer[64];
  // One prefix for a line (the band's median sets it): GB/s up to 10 TB/s, as a person reads DRAM and links.
  const bool tera = (scale > 0 ? scale : value) >= (unit == "B/s" ? 1e13 : 1e12);
  const bool rate = unit == "B/s" || unit == "updates/s" || unit == "op/s";
  const double shown = rate ? value / (tera ? 1e12 : 1e9) : value;
  const std::string suffix = unit == "B/s"         ? (tera ? "TB/s" : "GB/s")
                             : unit == "updates/s" ? (tera ? "T updates/s" : "G updates/s")
                             : unit == "op/s"      ? (tera ? "T op/s" : "G op/s")
                                                   : unit;
  // Four significant digits, and no exponent: 10000 GB/s, not 1e+04.
  std::snprintf(buffer, sizeof buffer, shown >= 1000 ? "%.0f %s" : "%.4g %s", shown, suffix.c_str());
  return buffer;
}

std::vector<std::string> verdict_lines(const GpuVerdict& g) {
  std::vector<std::string> lines;
  const std::string gpu = "GPU " + std::to_string(g.ordinal);
  const std::string who = gpu + " (" + g.name + (g.uuid.empty() ? "" : ", " + g.uuid) + ")";
  if (g.reference == nullptr) {
    std::string known;
    for (const Reference& r : built_in_references()) known += (known.empty() ? "" : ", ") + r.gpu_name;
    lines.push_back(who + ": no reference for the " + g.name + " (built in: " + (known.empty() ? "none" : known) +
                    "; none in use has the efficiencies a provisional check needs; scripts/reference.py makes one "
                    "from runs of this model, --check=FILE reads it)");
    return lines;
  }
  const bool provisional = g.reference->provisional;
  int counts[9] = {};
  for (const CaseVerdict& c : g.cases) {
    ++counts[static_cast<int>(c.kind)];
    const Band& b = *c.band;
    std::string line = gpu + ": " + word(c.kind) + " " + b.of.level + ": " + b.of.name + ": ";
    char pct[96];
    if (provisional && c.value) {
      std::snprintf(pct, sizeof pct, "%.1f%% of this GPU's peak", *c.value);
      line += pct;
    } else {
      line += c.value ? show_value(*c.value, b.unit, b.median) : std::string("no value");
    }
    if (provisional) {
      std::snprintf(pct, sizeof pct, ", provisional band %.1f%% to %.1f%%", b.efficiency->low, b.efficiency->high);
      line += pct;
    } else {
      line += ", band " + show_value(b.low, b.unit, b.median) + " to " + show_value(b.high, b.unit, b.median);
    }
    if (c.widened_pct > 0) {
      char widened[96];
      std::snprintf(widened, sizeof widened, ", widened by %.3g%% each side (the host paces it: %g x its noise)",
                    c.widened_pct, kHostNoiseWidths);
      line += widened;
    }
    if (!c.why.empty()) line += " (" + c.why + ")";
    lines.push_back(line);
  }
  using K = CaseVerdict::Kind;
  const auto n = [&](K k) { return counts[static_cast<int>(k)]; };
  const int status = g.status();
  std::ostringstream s;
  s << who << ": "
    << (status == kCheckHealthy                ? "healthy"
        : status == kCheckUnhealthy            ? "UNHEALTHY"
        : status == kCheckProvisionalHealthy   ? "provisionally healthy"
        : status == kCheckProvisionalUnhealthy ? "PROVISIONALLY UNHEALTHY"
                                               : "inconclusive")
    << ": " << n(K::within) + n(K::better) << " of " << g.cases.size() - n(K::unmodelled) << " cases within their "
    << (provisional ? "provisional bands" : "bands");
  if (n(K::slow)) s << ", " << n(K::slow) << " below";
  if (n(K::failed)) s << ", " << n(K::failed) << " failed";
  if (n(K::contended)) s << ", " << n(K::contended) << " below while another process used the GPU (not judged)";
  if (n(K::clock_event)) s << ", " << n(K::clock_event) << " below under a clock event (not judged)";
  if (n(K::noisy)) s << ", " << n(K::noisy) << " below but too noisy to judge";
  if (n(K::not_run)) s << ", " << n(K::not_run) << " not run";
  if (n(K::unmodelled))
    s << ", " << n(K::unmodelled) << " not judged here (no peak to judge by, or not runnable on this GPU)";
  const Reference& r = *g.reference;
  if (provisional)
    s << " (no reference for the " << g.name << "; " << r.origin << ", margin " << r.margin_pct
      << "%; scripts/reference.py makes a reference from this model's runs)";
  else
    s << " (reference " << r.origin << ": " << r.runs << " runs on " << r.gpus << " GPUs, margin " << r.margin_pct
      << "%)";
  lines.push_back(s.str());
  return lines;
}

std::string prometheus_text(const std::vector<GpuVerdict>& gpus, const std::string& host, double seconds) {
  std::ostringstream os;
  const std::string h = "host=" + label(host);
  os << "# HELP membench_check_status membench --check per GPU: 0 healthy, 1 unhealthy, 3 inconclusive, 4 no "
        "reference for its model, 5 provisionally healthy, 6 provisionally unhealthy (basis: reference, provisional "
        "or none)\n# TYPE membench_check_status gauge\n";
  const auto basis = [](const GpuVerdict& g) {
    return label(g.reference == nullptr ? "none" : g.reference->provisional ? "provisional" : "reference");
  };
  for (const GpuVerdict& g : gpus)
    os << "membench_check_status{" << h << ",gpu=" << label(std::to_string(g.ordinal)) << ",uuid=" << label(g.uuid)
       << ",model=" << label(g.name) << ",basis=" << basis(g) << "} " << g.status() << '\n';
  os << "# HELP membench_check_case_status Each case: 0 within its band or better, 1 below it or failed, 3 not "
        "judged (contended, clock event, not run, no peak for a provisional band)\n# TYPE membench_check_case_status "
        "gauge\n";
  std::ostringstream ratios;
  for (const GpuVerdict& g : gpus)
    for (const CaseVerdict& c : g.cases) {
      const std::string labels = "{" + h + ",gpu=" + label(std::to_string(g.ordinal)) + ",uuid=" + label(g.uuid) +
                                 ",case=" + label(c.band->of.name) + ",level=" + label(c.band->of.level) +
                                 ",basis=" + basis(g) + "}";
      os << "membench_check_case_status" << labels << ' ' << case_status(c.kind) << '\n';
      // A provisional band's value is pct_of_peak, over its efficiency's median.
      const double median = g.reference->provisional ? c.band->efficiency->median : c.band->median;
      const bool higher_better = g.reference->provisional || c.band->higher_better;
      if (c.value && *c.value > 0 && median > 0)
        ratios << "membench_check_case_ratio" << labels << ' '
               << number(higher_better ? *c.value / median : median / *c.value) << '\n';
    }
  os << "# HELP membench_check_case_ratio Each case's value over its reference median, latencies inverted (a "
        "provisional band: its percent of peak over the median efficiency): below 1 is worse\n# TYPE "
        "membench_check_case_ratio gauge\n"
     << ratios.str();
  os << "# HELP membench_check_duration_seconds How long the check ran\n# TYPE membench_check_duration_seconds "
        "gauge\nmembench_check_duration_seconds{"
     << h << "} " << number(seconds) << '\n';
  return os.str();
}

}  // namespace membench::run
