// The formats' records (src/core/format_record.hpp): every registered format has one, complete
// (title, options, and for a gpuauto candidate a byte model and constants); option names are the
// format's and unique; a bad value gets the message the adapters have always given; the public
// header's option list, docs/options.md's option tables and conf/gpuauto/*.txt agree with them.
#include "core/format_record.hpp"
#include "matgen.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using gpumat::FormatRecord;
using gpumat::OptionKind;
using gpumat::OptionRecord;

namespace {

// src/formats.def's roots, read by the preprocessor as the library reads them
const std::vector<std::string> kRegistered = {
#define GPUMAT_FORMAT(root, factory, title) #root,
#include "formats.def"
#undef GPUMAT_FORMAT
};

// Every option of every record and the machinery's.
std::vector<const OptionRecord *> all_options() {
  std::vector<const OptionRecord *> v;
  for (const FormatRecord *r : gpumat::format_records())
    for (const OptionRecord &o : r->options) v.push_back(&o);
  for (const OptionRecord &o : gpumat::machinery_option_records()) v.push_back(&o);
  return v;
}

std::string read_file(const std::string &path) {
  std::ifstream     in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The message ReadOption (src/petsc/options.cxx) raises for v, or "" when v is accepted; the
// largest PetscInt of a 32-bit PETSc build.
std::string refusal(const OptionRecord &o, long long v) {
  const bool in_range = gpumat::option_in_range(o, double(v));
  if (in_range && gpumat::option_allowed(o, v)) return "";
  return gpumat::option_error(o, in_range, std::to_string(v), 2147483647);
}

const OptionRecord &opt(const char *format, const char *key) {
  const FormatRecord *r = gpumat::find_record(format);
  EXPECT_NE(r, nullptr) << format;
  const OptionRecord *o = r ? r->option(key) : nullptr;
  EXPECT_NE(o, nullptr) << format << " " << key;
  static const OptionRecord none;
  return o ? *o : none;
}

} // namespace

TEST(Records, EveryRegisteredFormatHasOne) {
  const auto &all = gpumat::format_records();
  ASSERT_EQ(all.size(), kRegistered.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_NE(all[i], nullptr);
    EXPECT_EQ(all[i]->name, kRegistered[i]); // the registry's order
    EXPECT_FALSE(all[i]->title.empty()) << all[i]->name;
    EXPECT_EQ(gpumat::find_record(kRegistered[i]), all[i]);
  }
  EXPECT_EQ(gpumat::find_record("nosuch"), nullptr);
}

TEST(Records, CandidatesHaveAByteModelAndConstants) {
  // the candidates are the records with a byte model, in the registry's order (the tie order)
  std::vector<std::string> with_model;
  for (const FormatRecord *r : gpumat::format_records())
    if (r->gpuauto.model) with_model.push_back(r->name);
  EXPECT_EQ(gpumat::auto_all_candidates(), with_model);
  ASSERT_FALSE(with_model.empty());

  const gpumat::AutoConstants shipped = gpumat::auto_shipped_constants();
  const auto                  M       = matgen::stencil_2d(60, 60);
  const auto                  v       = M.values<double>();
  const gpumat::AutoSample    s       = gpumat::auto_sample(M.view(v), gpumat::AutoHints());
  int                         small   = 0;
  for (const FormatRecord *r : gpumat::format_records()) {
    const gpumat::AutoRecord &a = r->gpuauto;
    if (!a.model) {
      EXPECT_TRUE(a.constants.empty() && a.overrides.empty() && !a.small_blocks) << r->name << ": constants without a byte model";
      EXPECT_TRUE(a.build.ns_nnz == 0 && a.build.ns_row == 0 && a.build.us == 0) << r->name << ": build constants without a byte model";
      EXPECT_EQ(shipped.build.count(r->name), 0u) << r->name;
      continue;
    }
    small += a.small_blocks;
    // its own key, and variants "<name>:<variant>"; the shipped constants hold them
    bool own = false;
    for (const auto &[key, k] : a.constants) {
      own |= key == r->name;
      EXPECT_TRUE(key == r->name || key.rfind(r->name + ":", 0) == 0) << key;
      EXPECT_TRUE(k.k > 0 && k.g > 0 && k.r_ps >= 0) << key;
      ASSERT_EQ(shipped.fmt.count(key), 1u) << key;
      EXPECT_EQ(shipped.fmt.at(key).k, k.k) << key;
    }
    EXPECT_TRUE(own) << r->name << " has no constants of its own name";
    // its build model: a cost per nonzero at least (the upload), none negative; shipped by its name
    EXPECT_TRUE(a.build.ns_nnz > 0 && a.build.ns_row >= 0 && a.build.us >= 0) << r->name << ": build constants";
    ASSERT_EQ(shipped.build.count(r->name), 1u) << r->name;
    EXPECT_EQ(shipped.build.at(r->name).ns_nnz, a.build.ns_nnz) << r->name;
    if (r->caps.long_part) {
      EXPECT_EQ(shipped.fmt.count(r->name + ":long"), 1u) << r->name << ": a long part without its constants";
    }
    for (const auto &o : a.overrides) {
      EXPECT_TRUE(o.key == r->name || o.key.rfind(r->name + ":", 0) == 0) << o.key;
      EXPECT_NE(o.field, nullptr) << o.key;
      EXPECT_FALSE(o.gpu.empty()) << o.key;
    }
    // the model judges a plain stencil
    gpumat::AutoShape sh;
    sh.key = r->name;
    EXPECT_TRUE(a.model(gpumat::AutoHints(), s, sh)) << r->name;
    EXPECT_GT(sh.bytes, 0) << r->name;
    EXPECT_FALSE(sh.detail.empty()) << r->name;
    EXPECT_EQ(sh.key.rfind(r->name, 0), 0u) << sh.key;
  }
  EXPECT_EQ(small, 1) << "one candidate takes the small blocks";
}

TEST(Records, OptionNamesAreTheFormatsAndUnique) {
  std::set<std::string> seen;
  for (const FormatRecord *r : gpumat::format_records())
    for (const OptionRecord &o : r->options) EXPECT_EQ(o.name.rfind("-mat_" + r->name + "_", 0), 0u) << o.name << " in the record of " << r->name;
  for (const OptionRecord &o : gpumat::machinery_option_records()) EXPECT_EQ(o.name.rfind("-mat_gpumat_", 0), 0u) << o.name;
  for (const OptionRecord *o : all_options()) {
    EXPECT_TRUE(seen.insert(o->name).second) << o->name << " twice";
    EXPECT_FALSE(o->help.empty()) << o->name;
    EXPECT_FALSE(o->man.empty()) << o->name;
    EXPECT_NE(o->range_error.find("{name}"), std::string::npos) << o->name;
    EXPECT_NE(o->range_error.find("{value}"), std::string::npos) << o->name;
    switch (o->kind) {
    case OptionKind::Int: {
      EXPECT_LE(o->lo, o->hi) << o->name;
      EXPECT_GE(o->step, 1) << o->name;
      // the default is a value the option accepts
      long long d = 0;
      ASSERT_NO_THROW(d = std::stoll(o->default_text)) << o->name << " default '" << o->default_text << "'";
      EXPECT_EQ(refusal(*o, d), "") << o->name;
      break;
    }
    case OptionKind::Real:
      EXPECT_LE(o->lo, o->hi) << o->name;
      EXPECT_TRUE(gpumat::option_in_range(*o, std::stod(o->default_text))) << o->name;
      break;
    case OptionKind::Enum:
      EXPECT_FALSE(o->choices.empty()) << o->name;
      EXPECT_FALSE(o->enum_type.empty() || o->enum_prefix.empty()) << o->name;
      EXPECT_NE(std::find(o->choices.begin(), o->choices.end(), o->default_text), o->choices.end()) << o->name;
      break;
    default:
      break;
    }
  }
  const FormatRecord *pjds = gpumat::find_record("pjds");
  ASSERT_NE(pjds, nullptr);
  ASSERT_NE(pjds->option("sigma"), nullptr);
  EXPECT_EQ(pjds->option("sigma")->name, "-mat_pjds_sigma");
  EXPECT_EQ(pjds->option("nosuch"), nullptr);
}

TEST(Records, BadValuesGetTheAdaptersMessages) {
  // the messages tests/petsc's bad-option tests look for, and their neighbours
  EXPECT_EQ(refusal(opt("csrspec", "w"), 65), "-mat_csrspec_w must be in [0, 64] (0 chooses the default), got 65");
  EXPECT_EQ(refusal(opt("csrspec", "w"), 64), "");
  EXPECT_EQ(refusal(opt("csrspec", "tiles_per_block"), -1), "-mat_csrspec_tiles_per_block must be in [0, 1024] (0 chooses the default), got -1");
  EXPECT_EQ(refusal(opt("cusparsesell", "slice"), 0), "-mat_cusparsesell_slice must be in [1, 1024], got 0");
  EXPECT_EQ(refusal(opt("cusparsecsr", "alg"), 3), "-mat_cusparsecsr_alg must be 1 or 2, got 3");
  EXPECT_EQ(refusal(opt("cusparsebsr", "bs"), 1), "-mat_cusparsebsr_bs must be 0 (the default) or in [2, 16], got 1");
  EXPECT_EQ(refusal(opt("cusparsebsr", "bs"), 17), "-mat_cusparsebsr_bs must be 0 (the default) or in [2, 16], got 17");
  EXPECT_EQ(refusal(opt("cusparsebsr", "bs"), 0), "");
  EXPECT_EQ(refusal(opt("pjds", "block_rows"), 1025), "-mat_pjds_block_rows must be in [0, 1024] (0 chooses the default), got 1025");
  EXPECT_EQ(refusal(opt("pjds", "sigma"), -1), "-mat_pjds_sigma must be in [0, 2147483647] (0 chooses the default), got -1");
  EXPECT_EQ(refusal(opt("pjds", "sigma"), 2147483647), "");
  EXPECT_EQ(refusal(opt("pjds", "occupancy"), 5), "-mat_pjds_occupancy must be 0 (measured), 4 or 6 (blocks per multiprocessor), got 5");
  EXPECT_EQ(refusal(opt("pjds", "occupancy"), 7), "-mat_pjds_occupancy must be in [0, 6] (0 chooses the default), got 7");
  EXPECT_EQ(refusal(opt("pjds", "occupancy"), 4), "");
  EXPECT_EQ(refusal(opt("pjds", "lanes"), 12), "-mat_pjds_lanes must be 0 (by the long rows), 4, 8, 16 or 32, got 12");
  EXPECT_EQ(refusal(opt("pjds", "passes"), 65), "-mat_pjds_passes must be in [0, 64] (0 chooses the default), got 65");
  EXPECT_EQ(refusal(opt("bce", "max_sets"), 1), "-mat_bce_max_sets must be 0 (the default, 1025) or in [2, 4096], got 1");
  EXPECT_EQ(refusal(opt("bce", "max_sets"), 4097), "-mat_bce_max_sets must be in [0, 4096], got 4097");
  EXPECT_EQ(refusal(opt("bce", "lanes"), 3), "-mat_bce_lanes must be 0 (by the long rows), 4, 8, 16 or 32, got 3");
  EXPECT_EQ(refusal(opt("bce", "group_cost"), -2), "-mat_bce_group_cost must be in [-1, 1073741824], got -2");
  EXPECT_EQ(refusal(opt("bce", "group_cost"), -1), "");
  const OptionRecord &strategy = opt("bccoo", "strategy");
  EXPECT_EQ(refusal(strategy, 3), "-mat_bccoo_strategy: " + strategy.help + "; got 3");
  EXPECT_EQ(refusal(opt("bccoo", "block_width"), 3).rfind("-mat_bccoo_block_width: Block width w: 1, 2 or 4", 0), 0u);
  EXPECT_EQ(refusal(opt("bccoo", "block_width"), 4), "");
  EXPECT_NE(refusal(opt("bccoo", "tile"), 12), "");
  EXPECT_EQ(refusal(opt("bccoo", "tile"), 16), "");
  EXPECT_NE(refusal(opt("bccoo", "group"), 48), "");
  EXPECT_EQ(refusal(opt("bccoo", "group"), 64), "");
  EXPECT_EQ(refusal(opt("bccoo", "tune_reps"), 0), "-mat_bccoo_tune_reps: timed products per candidate of the tuner must be in [1, 1000]; got 0");
  EXPECT_EQ(refusal(opt("gpuauto", "small"), -1), "-mat_gpuauto_small must be 0 (predict every block) or a count of nonzeros, got -1");
  EXPECT_EQ(refusal(opt("gpuauto", "trial"), 1), "-mat_gpuauto_trial must be 0 (off) or 2..7 candidates, got 1");
  EXPECT_EQ(refusal(opt("gpuauto", "trial"), 8), "-mat_gpuauto_trial must be 0 (off) or 2..7 candidates, got 8");
  EXPECT_EQ(refusal(opt("gpuauto", "trial_products"), 1001), "-mat_gpuauto_trial_products must be in [1, 1000], got 1001");
  EXPECT_EQ(refusal(opt("gpuauto", "horizon"), -1), "-mat_gpuauto_horizon must be 0 (the product time alone) or a count of products, got -1");
  EXPECT_EQ(refusal(opt("gpuauto", "horizon"), 0), "");
  EXPECT_EQ(refusal(opt("gpuauto", "horizon"), 2147483647), "");
  for (const OptionRecord &o : gpumat::machinery_option_records())
    if (o.name == "-mat_gpumat_compressed_rows_ratio") {
      EXPECT_FALSE(gpumat::option_in_range(o, 1.5));
      EXPECT_EQ(gpumat::option_error(o, false, "1.5", 2147483647), "-mat_gpumat_compressed_rows_ratio must be in [0, 1], got 1.5");
    }
}

TEST(Records, GpuautoCandidatesHelpListsTheRegistry) {
  std::string list;
  for (const std::string &c : gpumat::auto_all_candidates()) list += (list.empty() ? "" : ", ") + c;
  EXPECT_EQ(gpumat::option_help(opt("gpuauto", "candidates")), "Comma-separated formats gpuauto chooses among (default: every one available: " + list + ")");
}

// Every -mat_ option the public header's comment names under our prefixes (-mat_<format>_,
// -mat_gpumat_) is a record's; a family ("-mat_pjds_*") is not an option.
TEST(Records, HeaderOptionsAreRecords) {
  const std::string header = read_file(GPUMAT_HEADER);
  ASSERT_FALSE(header.empty()) << GPUMAT_HEADER;
  const std::string comment = header.substr(0, header.find("*/"));
  std::set<std::string> known;
  for (const OptionRecord *o : all_options()) known.insert(o->name);
  std::vector<std::string> prefixes = {"-mat_gpumat_"};
  for (const FormatRecord *r : gpumat::format_records()) prefixes.push_back("-mat_" + r->name + "_");
  const std::regex word("-mat_[a-z0-9_]+");
  int              named = 0;
  for (auto it = std::sregex_iterator(comment.begin(), comment.end(), word); it != std::sregex_iterator(); ++it) {
    const std::string w = it->str();
    if (w.back() == '_') continue; // a family
    if (std::none_of(prefixes.begin(), prefixes.end(), [&](const std::string &p) { return w.rfind(p, 0) == 0; })) continue; // PETSc's (-mat_type)
    ++named;
    EXPECT_EQ(known.count(w), 1u) << GPUMAT_HEADER << " names " << w << ", which no record has";
  }
  EXPECT_GT(named, 0);
}

// docs/options.md: every option of every record and the machinery's is one row "| `-mat_... ` |"
// of its tables, and every such row is a record's option.
TEST(Records, DocsOptionTablesMatchTheRecords) {
  const std::string path = std::string(GPUMAT_DOCS_DIR) + "/options.md";
  std::ifstream     in(path);
  ASSERT_TRUE(in) << path << " is missing: the option tables the records are checked against";
  std::map<std::string, int> rows;
  const std::regex           row(R"(^\|\s*`(-mat_[a-z0-9_]+)[` ])");
  std::string                line;
  std::smatch                m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, row)) ++rows[m[1].str()];
  for (const OptionRecord *o : all_options()) {
    const auto it = rows.find(o->name);
    EXPECT_TRUE(it != rows.end() && it->second == 1) << o->name << ": " << (it == rows.end() ? 0 : it->second) << " rows in " << path << ", not one";
  }
  std::set<std::string> known;
  for (const OptionRecord *o : all_options()) known.insert(o->name);
  for (const auto &[name, n] : rows) EXPECT_EQ(known.count(name), 1u) << path << " has a row for " << name << ", which no record has";
}

// conf/gpuauto/h100.txt and h200.txt are auto_write_constants' output for the shipped constants,
// byte for byte (generated from the records, not kept by hand): on a difference the test writes
// the expected file beside itself, to copy over the old one.
TEST(Records, ShippedConstantsFilesAreGenerated) {
  for (const auto &[file, gpu] : {std::pair<std::string, std::string>{"h100.txt", "NVIDIA H100 80GB HBM3"}, {"h200.txt", "NVIDIA H200"}}) {
    const std::string expect = std::string(GPUMAT_WRITE_DIR) + "/gpuauto-" + file, have = std::string(GPUMAT_SHIPPED_CONSTANTS_DIR) + "/" + file;
    std::string       err;
    ASSERT_TRUE(gpumat::auto_write_constants(expect, gpumat::auto_shipped_constants(gpu), err)) << err;
    EXPECT_EQ(read_file(have), read_file(expect)) << have << " is not the shipped constants' file; regenerate it: cp " << expect << " " << have;
  }
}
