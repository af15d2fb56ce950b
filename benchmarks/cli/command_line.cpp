#include "cli/command_line.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <variant>

#include "cli/gbench_flags.hpp"
#include "cli/sweep_file.hpp"

namespace membench::cli {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

const engine::OptionSpec* measure_option(const std::string& name) {
  for (const auto& spec : engine::measure_options())
    if (spec.name == name) return &spec;
  return nullptr;
}

// Sets a measurement option from --name[=value], by the kind of its field.
void set_option(const engine::OptionSpec& spec, const std::optional<std::string>& value, engine::MeasureOptions& m) {
  const auto need_value = [&]() -> const std::string& {
    if (!value) throw UsageError("--" + spec.name + ": expects --" + spec.name + "=" + spec.value);
    return *value;
  };
  std::visit(
      [&](auto field) {
        using T = std::decay_t<decltype(m.*field)>;
        if constexpr (std::is_same_v<T, bool>) {
          m.*field = !value || parse_bool(spec.name, *value);
        } else if constexpr (std::is_same_v<T, int>) {
          m.*field = parse_int(spec.name, need_value(), static_cast<std::int64_t>(spec.min),
                               static_cast<std::int64_t>(spec.max));
        } else if constexpr (std::is_same_v<T, double>) {
          m.*field = parse_number(spec.name, need_value(), spec.min, spec.max);
        } else {
          const std::string& v = need_value();
          const auto it = std::find(spec.choices.begin(), spec.choices.end(), v);
          if (it == spec.choices.end()) {
            std::string list;
            for (std::size_t i = 0; i < spec.choices.size(); ++i)
              list += (i == 0 ? "" : i + 1 == spec.choices.size() ? " or " : ", ") + spec.choices[i];
            refuse(spec.name, v, "expects " + list);
          }
          m.*field = static_cast<T>(it - spec.choices.begin());
        }
      },
      spec.field);
}

std::vector<Arg> command_line_args(int argc, const char* const* argv) {
  std::vector<Arg> args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h") {
      args.push_back({"help", std::nullopt, ""});
      continue;
    }
    if (!starts_with(arg, "--") || arg.size() == 2)
      throw UsageError("unexpected argument '" + arg + "' (flags look like --name=value)");
    const auto eq = arg.find('=');
    if (eq == std::string::npos)
      args.push_back({arg.substr(2), std::nullopt, ""});
    else
      args.push_back({arg.substr(2, eq - 2), arg.substr(eq + 1), ""});
  }
  return args;
}

// Applies one argument to `o`; throws UsageError naming it.
void apply(const Arg& a, const AxisTable& axes, Options& o, std::map<std::string, std::string>& benchmark) {
  const std::string& name = a.name;
  auto need_value = [&]() -> const std::string& {
    if (!a.value) throw UsageError("--" + name + ": expects --" + name + "=VALUE");
    return *a.value;
  };
  if (name == "help") {
    o.help = !a.value || parse_bool(name, *a.value);
  } else if (name == "version") {
    o.version = !a.value || parse_bool(name, *a.value);
  } else if (name == "l2_flush") {  // the old spelling of --l2=cold
    o.measure.l2 = !a.value || parse_bool(name, *a.value) ? engine::L2::cold : engine::L2::warm;
  } else if (const auto* option = measure_option(name)) {
    set_option(*option, a.value, o.measure);
  } else if (name == "list_cases") {
    if (need_value() != "json") refuse(name, *a.value, "expects json");
    o.list_cases = true;
  } else if (name == "device") {
    const std::string& v = need_value();
    o.device = DeviceSelection{};
    if (v == "all") {
      o.device.kind = DeviceSelection::Kind::all;
    } else if (v == "local") {
      o.device.kind = DeviceSelection::Kind::local;
    } else {
      AxisSpec ordinals;
      ordinals.name = name;
      ordinals.min = 0;
      ordinals.max = kMaxDevices - 1;
      o.device.ordinals.clear();
      for (auto d : expand_list(ordinals, v)) {
        if (std::find(o.device.ordinals.begin(), o.device.ordinals.end(), d) != o.device.ordinals.end())
          refuse(name, v, "device " + std::to_string(d) + " is given twice");
        o.device.ordinals.push_back(static_cast<int>(d));
      }
    }
  } else if (name == "check") {
    if (a.value && a.value->empty()) throw UsageError("--check: expects --check or --check=REFERENCE.json");
    o.check = true;
    o.check_file = a.value.value_or("");
  } else if (name == "judge") {
    if (need_value().empty()) throw UsageError("--judge: expects --judge=RUN.json");
    o.judge_file = *a.value;
  } else if (name == "check_metrics") {
    if (need_value().empty()) throw UsageError("--check_metrics: expects --check_metrics=FILE.prom");
    o.check_metrics = *a.value;
  } else if (name == "resume") {
    if (need_value().empty()) throw UsageError("--resume: expects --resume=FILE.json");
    o.resume_file = *a.value;
  } else if (is_benchmark_flag(name)) {
    benchmark[name] = check_benchmark_flag(name, a.value);
  } else if (starts_with(name, "benchmark_")) {
    throw UsageError("--" + name + ": not a Google Benchmark flag this build knows (see --help)");
  } else if (const auto dot = name.find('.'); dot != std::string::npos) {
    const std::string family = name.substr(0, dot), axis = name.substr(dot + 1);
    const AxisSpec* spec = axes.find(family, axis);
    if (spec == nullptr)
      throw UsageError("unknown flag '--" + name + "' (no family '" + family + "' with an axis '" + axis + "')");
    AxisSpec named = *spec;
    named.name = name;
    o.scoped[family][axis] = parse_list(named, need_value());
  } else if (const AxisSpec* spec = axes.find(name)) {
    o.sweep[name] = parse_list(*spec, need_value());
  } else {
    throw UsageError("unknown flag '--" + name + (a.value ? "=" + *a.value : "") + "' (see --help)");
  }
}

}  // namespace

std::vector<std::int64_t> Options::values(const std::string& family, const cases::AxisSpec& axis) const {
  if (const auto f = scoped.find(family); f != scoped.end())
    if (const auto a = f->second.find(axis.name); a != f->second.end()) return a->second;
  const auto it = sweep.find(axis.name);
  return it == sweep.end() ? axis.defaults : it->second;
}

cases::Selection Options::selection() const {
  cases::Selection s;
  s.values = [this](const std::string& family, const cases::AxisSpec& axis) { return values(family, axis); };
  s.devices = run_devices;
  s.l2 = measure.l2;
  return s;
}

Options parse_command_line(int argc, const char* const* argv, const AxisTable& axes) {
  const std::vector<Arg> given = command_line_args(argc, argv);
  std::vector<Arg> args;
  std::string sweep_file;
  std::set<std::string> seen;
  for (const auto& a : given) {
    // One flag, one value: a second would silently win (a sweep file's keys are overridden, not repeated).
    const std::string flag = a.name == "l2_flush" ? "l2" : a.name;
    if (!seen.insert(flag).second && flag != "help")
      throw UsageError("--" + a.name + " is given twice (give one list: --" + a.name + "=A,B)");
    if (a.name != "sweep") continue;
    if (!a.value || a.value->empty()) throw UsageError("--sweep: expects --sweep=FILE.json");
    sweep_file = *a.value;
  }
  if (!sweep_file.empty()) args = sweep_file_args(sweep_file, axes);  // the file first: the command line wins
  for (const auto& a : given)
    if (a.name != "sweep") args.push_back(a);

  Options o;
  o.sweep_file = sweep_file;
  std::map<std::string, std::string> benchmark;
  for (const auto& a : args) {
    try {
      apply(a, axes, o, benchmark);
    } catch (const UsageError& e) { throw UsageError(a.origin + e.what()); }
  }
  if (o.check && (!o.sweep.empty() || !o.scoped.empty() || !o.sweep_file.empty() || !o.resume_file.empty()))
    throw UsageError("--check runs its reference's cases as they are: axis flags, --sweep and --resume do not apply");
  if (!o.check_metrics.empty() && !o.check)
    throw UsageError("--check_metrics=" + o.check_metrics + ": only with --check");
  if (!o.judge_file.empty() && !o.check) throw UsageError("--judge=" + o.judge_file + ": only with --check");
  if (argc > 0) o.passthrough.emplace_back(argv[0]);
  for (const auto& [name, value] : benchmark) o.passthrough.push_back("--" + name + "=" + value);
  o.list_only = benchmark.count("benchmark_list_tests") && benchmark["benchmark_list_tests"] == "true";
  o.min_time_given = benchmark.count("benchmark_min_time") > 0;
  // Without --benchmark_min_time the suite's own stopping rule decides how
  // long a case runs: Google Benchmark is satisfied by the first measurement.
  if (!o.min_time_given) o.passthrough.push_back("--benchmark_min_time=" + default_min_time());
  if (benchmark.count("benchmark_filter")) o.filter = benchmark["benchmark_filter"];
  if (benchmark.count("benchmark_out")) o.output_file = benchmark["benchmark_out"];
  if (benchmark.count("benchmark_out_format")) o.output_format = benchmark["benchmark_out_format"];
  if (benchmark.count("benchmark_repetitions")) o.repetitions = std::stoi(benchmark["benchmark_repetitions"]);
  return o;
}

std::string usage(const AxisTable& axes) {
  std::ostringstream os;
  os << "membench: what GPU memory accesses cost, measured with CUDA events and checked against a model.\n\n"
     << "Axis flags fill the case parameters of the same name (LIST := ITEM[,ITEM...],\n"
     << "ITEM := VALUE | VALUE:VALUE[:+K|:*K], VALUE := integer | 2^K | integer with K/M/G).\n"
     << "--AXIS=LIST sets every family's axis; --FAMILY.AXIS=LIST one family's (it wins).\n";
  for (const auto& [domain, uses] : axes.flags()) {
    os << "  --" << domain.name << "=LIST  (" << domain.unit << ")";
    if (!domain.names.empty())
      os << "  {" << joined_names(domain) << "}";
    else if (!domain.allowed.empty())
      os << "  {" << join(domain.allowed) << "}";
    os << '\n';
    for (const auto& use : uses) {
      std::string defaults = compact(use.axis.defaults);
      if (!use.axis.names.empty()) {
        defaults.clear();
        for (auto v : use.axis.defaults)
          defaults += (defaults.empty() ? "" : ",") + use.axis.names[static_cast<std::size_t>(v)];
      }
      os << "      " << use.family << ": " << use.axis.help << " (default " << defaults << ")\n";
    }
  }
  const engine::MeasureOptions defaults;
  os << "\nMeasurement:\n";
  for (const auto& spec : engine::measure_options()) {
    const std::string flag = "--" + spec.name + "=" + spec.value;
    os << "  " << flag << std::string(flag.size() < 25 ? 25 - flag.size() : 1, ' ') << spec.help << " (default "
       << engine::show(spec, defaults) << ")\n";
  }
  os << "  --l2_flush               the same as --l2=cold\n"
     << "  --device=LIST|all|local  the GPUs to measure, one after another (default 0); with more than\n"
     << "                           one, cases are named family/variant/device:K/...; local: the\n"
     << "                           launcher's local rank (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK,\n"
     << "                           MPI_LOCALRANKID, LOCAL_RANK)\n"
     << "  --resume=FILE            measure only what FILE (an earlier run's JSON, cut short) lacks; its\n"
     << "                           complete cases are carried over as they are (resumed = 1). FILE must\n"
     << "                           come from this GPU, driver and build; a missing FILE measures all\n"
     << "  --benchmark_out=PATTERN  {host}, {rank} and {device} in the name are filled in (in --resume too)\n"
     << "  --sweep=FILE.json        any of these flags as a JSON object (Google Benchmark's too, e.g.\n"
     << "                           \"benchmark_filter\"); flags on the command line win, key by key\n"
     << "  --list_cases=json        print every selected case as data (name, family, variant, tags,\n"
     << "                           axes with their units, kernels) and exit\n"
     << "  --check[=FILE]           the health check: run the short list of cases the reference for this\n"
     << "                           GPU's model names (built in, or FILE) and judge each GPU by\n"
     << "                           the bands it gives: exit 0 healthy, 1 a case below its band (or a\n"
     << "                           failed one), 3 inconclusive (below while another process used the GPU,\n"
     << "                           under a clock event or too noisy, or not run), 4 no reference for\n"
     << "                           this model\n"
     << "  --check_metrics=FILE     with --check: the verdicts in Prometheus' text format, FILE replaced\n"
     << "                           whole (for a node exporter's textfile collector)\n"
     << "  --judge=RUN.json         with --check: judge a run recorded earlier (default runs hold the\n"
     << "                           check's cases) instead of measuring; no GPU needed\n"
     << "  --version                the version, the build, the result file's schema and the libraries\n\n"
     << "Exit status: 0 every selected case ran and verified (cases this GPU cannot run are skipped\n"
     << "with their reason); 1 at least one case failed (wrong result, CUDA error), an uncorrected\n"
     << "ECC error, or --exclusive saw another process; 2 usage: a bad flag or value, an unreadable\n"
     << "sweep or resume file, a filter that is not a regular expression or matches no case;\n"
     << "128 + N after signal N (SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2): the cases not yet run are\n"
     << "skipped, the JSON is whole, and --resume=FILE runs the rest.\n\n"
     << "Google Benchmark's flags work as usual (--benchmark_filter, --benchmark_out, ...;\n"
     << "--benchmark_min_time takes seconds, X or Xs, on every version):\n";
  return os.str();
}

std::string describe_sweep(const Options& options, const AxisTable& axes) {
  // Named axes by their names, the others by their values.
  auto as_json = [&](const AxisSpec* axis, const std::vector<std::int64_t>& values) {
    nlohmann::json list = nlohmann::json::array();
    for (auto v : values) {
      if (axis != nullptr && !axis->names.empty())
        list.push_back(axis->names.at(static_cast<std::size_t>(v)));
      else
        list.push_back(v);
    }
    return list;
  };
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, values] : options.sweep) j[name] = as_json(axes.find(name), values);
  for (const auto& [family, list] : options.scoped)
    for (const auto& [axis, values] : list) j[family + "." + axis] = as_json(axes.find(family, axis), values);
  for (const auto& spec : engine::measure_options()) {
    std::visit([&](auto field) { j[spec.name] = options.measure.*field; }, spec.field);
    if (std::holds_alternative<engine::L2 engine::MeasureOptions::*>(spec.field))
      j[spec.name] = engine::show(spec, options.measure);
  }
  if (!options.resume_file.empty()) j["resume"] = options.resume_file;
  const char* kinds[] = {"list", "all", "local"};
  if (options.device.kind == DeviceSelection::Kind::list)
    j["device"] = options.device.ordinals;
  else
    j["device"] = kinds[static_cast<int>(options.device.kind)];
  if (!options.sweep_file.empty()) j["sweep_file"] = options.sweep_file;
  return j.dump();
}

}  // namespace membench::cli
