// Adapter: pjds (src/core/pjds.hpp, src/cuda/pjds.cuh) as a petsc-gpumat format.
#include "gpumat_impl.hpp"
#include "core/pjds.hpp"
#include "core/format_record.hpp"
#include <cstdio>
#include <stdexcept>
#include <string>
#if defined(GPUMAT_WITH_CUDA)
  #include "cuda/pjds.cuh"
#endif

namespace gpumat {
namespace {

class PjdsFormat final : public WithHostFunctions<GPUMAT_DEVICE_FORMAT(cuda::PjdsDevice<Scalar>), Pjds<Scalar>, pjds_refresh<Scalar>, pjds_apply<Scalar>> {
public:
#if defined(GPUMAT_WITH_CUDA)
  double ReadBytes() const override { return dev_.device_bytes() ? (double)dev_.format_bytes() : std::numeric_limits<double>::quiet_NaN(); }
#endif
  PetscErrorCode SetFromOptions(PetscOptionItems PetscOptionsObject) override
  {
    const FormatRecord &r = pjds_record();
    PetscFunctionBegin;
    struct {
      const char *key;
      PetscInt    shown;
    } opts[] = {
      {"block_rows", user_.block_rows}, {"sigma", (PetscInt)user_.sigma}, {"long_row", (PetscInt)user_.long_row}, {"occupancy", occupancy_}, {"lanes", shape_.lanes}, {"passes", shape_.passes},
    };
    PetscInt values[6];
    for (int k = 0; k < 6; ++k) PetscCall(ReadOption(PetscOptionsObject, r.option(opts[k].key), opts[k].shown, &values[k], nullptr));
    user_.block_rows = (int)values[0];
    user_.sigma      = values[1];
    user_.long_row   = values[2];
    occupancy_       = (int)values[3];
    shape_           = {(int)values[4], (int)values[5]};
    PetscEnum columns = (PetscEnum)user_.columns, vals = (PetscEnum)user_.values; // auto, plain, dictionary, positional | auto, plain, table: the enums' order
    PetscCall(ReadOption(PetscOptionsObject, r.option("columns"), columns, &columns, nullptr));
    PetscCall(ReadOption(PetscOptionsObject, r.option("values"), vals, &vals, nullptr));
    user_.columns = (PjdsColumns)columns;
    user_.values  = (PjdsValues)vals;
    PetscCall(Resolve(nullptr)); // report a bad combination now, not at the first product
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  bool SetFp32Values(bool on) override
  {
    user_.fp32 = on;
    return true;
  }

  std::unique_ptr<Format> CloneSettings() const override
  {
    auto f   = std::make_unique<PjdsFormat>();
    f->user_      = user_;
    f->occupancy_ = occupancy_;
    f->shape_     = shape_;
    return f;
  }

  PetscErrorCode HostBuild(const CsrView<Scalar> &A) override
  {
    PetscFunctionBegin;
    PetscCall(Choose(A));
    PetscCallCXX(pjds_build(A, choice_.p, host_));
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  PetscErrorCode DeviceBuild(const CsrView<Scalar> &A, cudaStream_t s) override { return BuildFrom(A, A, s); }
  PetscErrorCode BuildsOnDevice(const CsrView<Scalar> &, bool *yes) override
  {
    *yes = true;
    return PETSC_SUCCESS;
  }
  PetscErrorCode DeviceBuildOnDevice(const CsrView<Scalar> &A, const cuda::DeviceCsrView<Scalar> &dev, cudaStream_t s, bool *done) override
  {
    PetscFunctionBegin;
    PetscCall(BuildFrom(A, dev, s));
    *done = true;
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#endif

  PetscErrorCode ViewInfo(PetscViewer v, const CsrView<Scalar> &A) const override
  {
    const PjdsParams &p   = choice_.p;
    auto              src = [](std::int64_t user) { return user ? "set" : "model"; };
    char              sigma[64];
    PetscFunctionBegin;
    if (p.block_rows == 0) { // never built: the options only
      PetscCall(PetscViewerASCIIPrintf(v, "not built yet\n"));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (p.sigma >= A.nrows && p.sigma > 1) snprintf(sigma, sizeof(sigma), "all rows");
    else if (p.sigma == 1) snprintf(sigma, sizeof(sigma), "1 (no sorting)");
    else snprintf(sigma, sizeof(sigma), "%lld rows", (long long)p.sigma);
    PetscCall(PetscViewerASCIIPrintf(v, "blocks of %d rows (%s), rows sorted by length within windows of %s (%s), rows longer than %lld entries in the long part (%s)\n", p.block_rows, src(user_.block_rows), sigma,
                                     src(user_.sigma), (long long)p.long_row, src(user_.long_row)));
    if (!user_.sigma) { // the model's windows, as far as it went
      char        line[512];
      std::size_t n = (std::size_t)snprintf(line, sizeof(line), "model: padding (%% of the nonzeros) by sorting window:");
      for (int k = 0; k < kPjdsNumWindows; ++k)
        if (choice_.padding[k] >= 0 && n < sizeof(line)) {
          char w[32];
          if (kPjdsWindows[k] == pjds_all_rows) snprintf(w, sizeof(w), "all");
          else snprintf(w, sizeof(w), "%lld", (long long)kPjdsWindows[k]);
          n += (std::size_t)snprintf(line + n, sizeof(line) - n, " %s %.2f", w, A.nnz() ? 100.0 * (double)choice_.padding[k] / (double)A.nnz() : 0.0);
        }
      PetscCall(PetscViewerASCIIPrintf(v, "%s\n", line));
    }
    std::int64_t pj_rows = host_.nrows_pj, long_rows = (std::int64_t)host_.long_rows.size(), long_nnz = (std::int64_t)host_.long_val.size(), padded = host_.padded();
    [[maybe_unused]] std::int64_t chunks = -1; // the device's
    std::size_t                   bytes  = host_.bytes();
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) { // as the device stores it
      pj_rows = dev_.pjds_rows(), long_rows = dev_.long_rows(), long_nnz = dev_.long_entries(), padded = dev_.padded(), bytes = dev_.format_bytes(), chunks = dev_.chunks();
    }
#endif
    const double nnz = (double)A.nnz(), pj_nnz = nnz - (double)long_nnz, padding = (double)padded - pj_nnz;
    PetscCall(PetscViewerASCIIPrintf(v, "pJDS part: %lld rows, %lld stored entries, padding %.0f entries (%.2f %% of the nonzeros); long part: %lld rows, %lld entries", (long long)pj_rows, (long long)padded, padding,
                                     nnz > 0 ? 100.0 * padding / nnz : 0.0, (long long)long_rows, (long long)long_nnz));
#if defined(GPUMAT_WITH_CUDA)
    if (chunks >= 0) {
      const LongShape &sh = dev_.long_shape();
      PetscCall(PetscViewerASCIIPrintf(v, ", %lld chunks of %lld entries (%d lanes x 8 loads x %d passes; %s); kernel for %d blocks per multiprocessor (%s)\n", (long long)chunks, (long long)sh.entries(), sh.lanes, sh.passes,
                                       shape_.lanes || shape_.passes ? "set" : "by the long rows' lengths", dev_.kernel_occupancy(), OccupancyWhy().c_str()));
    } else
#endif
      PetscCall(PetscViewerASCIIPrintf(v, "\n"));
    PetscCall(PetscViewerASCIIPrintf(v, "columns: %s (-mat_pjds_columns %s)\n", ColumnsText().c_str(), kColumnNames[(int)user_.columns]));
    PetscCall(PetscViewerASCIIPrintf(v, "values: %s (-mat_pjds_values %s%s)\n", ValuesText().c_str(), kValueNames[(int)user_.values], user_.fp32 ? ", -mat_gpumat_values fp32" : ""));
    const double csr = 12.0 * nnz + 4.0 * (A.nrows + 1);
    PetscCall(PetscViewerASCIIPrintf(v, "format bytes read per product: %zu (CSR: %.0f, ratio %.3f)\n", bytes, csr, csr > 0 ? (double)bytes / csr : 0.0));
    const double nnzr = A.nrows ? nnz / A.nrows : 0.0, rho = nnz > 0 ? ((double)padded + (double)long_nnz) / nnz : 1.0;
    if (nnzr > 0)
      PetscCall(PetscViewerASCIIPrintf(v, "code balance (Kreutzer et al., eq. 1, fp64): %.2f B/flop with perfect reuse of x (alpha = 1/%.1f) to %.2f B/flop with none (alpha = 1)\n", pjds_code_balance(nnzr, 1.0 / nnzr, rho), nnzr,
                                       pjds_code_balance(nnzr, 1.0, rho)));
#if defined(GPUMAT_WITH_CUDA)
    if (!dev_.build_phases().empty()) {
      char        line[512];
      std::size_t n = (std::size_t)snprintf(line, sizeof(line), "last build (ms): model %.2f (host)", model_ms_);
      for (const auto &ph : dev_.build_phases())
        if (n < sizeof(line)) n += (std::size_t)snprintf(line + n, sizeof(line) - n, ", %s %.2f", ph.first, (double)ph.second);
      PetscCall(PetscViewerASCIIPrintf(v, "%s\n", line));
    }
#endif
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // Once built: columns (dictionary|positional|plain: as stored), dictionary_entries,
  // positional_offsets and positional_group (the offsets of all blocks and the rows per group they
  // start from; 0 unless positional), positional_declined (positional columns asked for and not
  // built, pjds_positional_pays: the positions they would have stored; else 0), values (table|fp32|plain:
  // as the product reads them now; fp32: -mat_gpumat_values fp32), table_entries (0 without),
  // table_bits (the codes' width: 8 up to 256 entries, else 16; 0 without),
  // block_rows, sigma (the sorting window in rows, "all" for all rows), long_row, each with its
  // _source (set|model); pjds_rows,
  // stored_entries, padding_entries (stored beyond the pJDS part's nonzeros), long_rows,
  // long_entries, format_bytes; once the device holds the format also chunks, chunk_entries, lanes,
  // passes, shape_source (set|long_rows: from the long rows' lengths), occupancy (blocks per
  // multiprocessor of the product's kernel) and occupancy_source (option|layout|trial: set, the
  // layout's until the first products are timed, or their times).
  void Describe(Properties &out, const CsrView<Scalar> &A) const override
  {
    const PjdsParams &p = choice_.p;
    if (p.block_rows == 0) return; // never built
    auto src = [](std::int64_t user) { return user ? "set" : "model"; };
    std::int64_t pj_rows = host_.nrows_pj, long_rows = (std::int64_t)host_.long_rows.size(), long_nnz = (std::int64_t)host_.long_val.size(), padded = host_.padded();
    std::size_t  bytes = host_.bytes();
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) pj_rows = dev_.pjds_rows(), long_rows = dev_.long_rows(), long_nnz = dev_.long_entries(), padded = dev_.padded(), bytes = dev_.format_bytes();
#endif
    out.insert(out.end(), {{"block_rows", std::to_string(p.block_rows)},
                           {"block_rows_source", src(user_.block_rows)},
                           {"sigma", p.sigma >= A.nrows && p.sigma > 1 ? std::string("all") : std::to_string(p.sigma)},
                           {"sigma_source", src(user_.sigma)},
                           {"long_row", std::to_string(p.long_row)},
                           {"long_row_source", src(user_.long_row)},
                           {"pjds_rows", std::to_string(pj_rows)},
                           {"stored_entries", std::to_string(padded)},
                           {"padding_entries", std::to_string(padded - ((std::int64_t)A.nnz() - long_nnz))},
                           {"long_rows", std::to_string(long_rows)},
                           {"long_entries", std::to_string(long_nnz)},
                           {"format_bytes", std::to_string(bytes)},
                           {"columns", Coded() ? "dictionary" : Positional() ? "positional" : "plain"},
                           {"dictionary_entries", std::to_string(DictEntries())},
                           {"positional_offsets", std::to_string(Positional() ? Offsets() : 0)},
                           {"positional_group", std::to_string(Positional() ? Group() : 0)},
                           {"positional_declined", std::to_string(Declined())},
                           {"values", TableEntries() ? "table" : Single() ? "fp32" : "plain"},
                           {"table_entries", std::to_string(TableEntries())},
                           {"table_bits", std::to_string(TableBits())}});
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes() && dev_.chunks() >= 0) {
      const LongShape &sh = dev_.long_shape();
      const auto      &t  = dev_.trial();
      out.insert(out.end(), {{"chunks", std::to_string(dev_.chunks())},
                             {"chunk_entries", std::to_string(sh.entries())},
                             {"lanes", std::to_string(sh.lanes)},
                             {"passes", std::to_string(sh.passes)},
                             {"shape_source", shape_.lanes || shape_.passes ? "set" : "long_rows"},
                             {"occupancy", std::to_string(dev_.kernel_occupancy())},
                             {"occupancy_source", occupancy_ ? "option" : t.decided() && !t.times().empty() ? "trial" : "layout"}});
    }
#endif
  }

private:
#if defined(GPUMAT_WITH_CUDA)
  // The device build from src, A's CSR on the host (uploaded) or on the device: the parameters
  // chosen on A's host pattern.
  template <class Source>
  PetscErrorCode BuildFrom(const CsrView<Scalar> &A, const Source &src, cudaStream_t s)
  {
    PetscFunctionBegin;
    PetscCall(Choose(A));
    dev_.set_occupancy(occupancy_); // validated by SetFromOptions
    dev_.set_long_shape(shape_);
    PetscCall(CheckBuild(dev_.build(src, choice_.p, s), A));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif

  // pjds_resolve of the user's options as a PETSc error (out: the resolved parameters, or null).
  PetscErrorCode Resolve(PjdsParams *out) const
  {
    PetscFunctionBegin;
    try {
      const PjdsParams p = pjds_resolve(user_);
      if (out) *out = p;
    } catch (const std::invalid_argument &e) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s (options -mat_pjds_block_rows, -mat_pjds_sigma, -mat_pjds_long_row)", e.what());
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  // The parameters for A: the user's, the rest from the model (pjds_model).
  PetscErrorCode Choose(const CsrView<Scalar> &A)
  {
    PetscLogDouble t0, t1;
    PetscFunctionBegin;
    PetscCall(Resolve(nullptr));
    PetscCall(PetscTime(&t0));
    PetscCallCXX(choice_ = pjds_model(A, user_));
    PetscCall(PetscTime(&t1));
    model_ms_ = 1e3 * (t1 - t0);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

#if defined(GPUMAT_WITH_CUDA)
  // Where the product's instance comes from, for MatView: the option, the trial's times, or the
  // layout's default while the trial's products are pending.
  std::string OccupancyWhy() const
  {
    if (occupancy_) return "-mat_pjds_occupancy";
    const auto &t = dev_.trial();
    if (!t.decided()) return "by the layout until the first products have been timed";
    if (t.times().empty()) return "by the layout: the products could not be timed";
    std::string why = "the faster of the first products:";
    char        b[48];
    for (const auto &c : t.times()) {
      snprintf(b, sizeof(b), " %d blocks %.4f ms", c.first, (double)c.second);
      why += b;
    }
    return why;
  }
#endif

  static constexpr const char *kColumnNames[4] = {"auto", "plain", "dictionary", "positional"};
  // The stored layout's columns (the device's where it holds the format, else the host's)
  // A fact of the stored layout: dev(the device's) where it holds the format, else host(the host's)
  template <class Dev, class Host>
  auto AsStored(Dev dev, Host host) const
  {
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes()) return dev(dev_);
#endif
    (void)dev;
    return host(host_);
  }
  bool         Coded() const { return AsStored([](const auto &d) { return d.coded(); }, [](const auto &h) { return h.coded(); }); }
  bool         Positional() const { return AsStored([](const auto &d) { return d.positional(); }, [](const auto &h) { return h.positional(); }); }
  // positional columns: the offsets of all blocks, and the rows per group they start from
  std::int64_t Offsets() const
  {
    return AsStored([](const auto &d) { return std::int64_t(d.offset_entries()); }, [](const auto &h) { return std::int64_t(h.poff.size()); });
  }
  index_t      Group() const { return AsStored([](const auto &d) { return d.group(); }, [](const auto &h) { return h.pgroup; }); }
  // positional columns asked for and declined: the positions they would have stored (0: not so)
  std::int64_t Declined() const { return AsStored([](const auto &d) { return d.positional_declined(); }, [](const auto &h) { return h.positional_declined; }); }
  std::int64_t DictEntries() const
  {
    return AsStored([](const auto &d) { return std::int64_t(d.dict_entries()); }, [](const auto &h) { return std::int64_t(h.dict.size()); });
  }
  static constexpr const char *kValueNames[3] = {"auto", "plain", "table"};
  // The value table's entries while the product reads it (0: the values as stored)
  std::int64_t TableEntries() const
  {
    return AsStored([](const auto &d) { return d.table_in_use() ? std::int64_t(d.table_entries()) : std::int64_t(0); }, [](const auto &h) { return std::int64_t(h.table.size()); });
  }
  // The width of the value table's codes while the product reads it: 8 up to kPjdsTableMax entries,
  // else 16 (0: the values as stored)
  int TableBits() const
  {
    const std::int64_t t = TableEntries();
    return t ? 8 * int(pjds_code_bytes(t)) : 0;
  }
  // fp32 storage built (-mat_gpumat_values fp32 where no value table applies)
  bool Single() const { return AsStored([](const auto &d) { return d.single(); }, [](const auto &h) { return h.single(); }); }
  std::string ValuesText() const
  {
    std::string drops;
    if (host_.table_drops) drops = "; turned off by " + std::to_string(host_.table_drops) + " refreshes with values outside it";
#if defined(GPUMAT_WITH_CUDA)
    if (dev_.device_bytes() && dev_.tabled() && !dev_.table_in_use()) drops = "; turned off by a refresh with a value outside it, until the next build";
#endif
    if (const std::int64_t t = TableEntries()) return std::to_string(TableBits()) + "-bit codes into a table of " + std::to_string(t) + " distinct values" + drops;
    if (Single()) return "fp32, rounded from the assembled values (lossy; the products' sums in fp64)" + drops;
    if (user_.fp32) return "as stored (fp32 storage asked for, not built: a value table was, or the values are single precision)" + drops;
    return "as stored" + drops;
  }
  std::string ColumnsText() const
  {
    if (Positional())
      return "positional: no column per entry, each block's rows as wide as its distinct offsets from the first row of their group of " + std::to_string(Group()) + " rows (" +
             std::to_string(Offsets()) + " offsets in all)";
    if (const std::int64_t n = Declined())
      return "32-bit (positional asked for: its " + std::to_string(n) + " positions would not read fewer bytes than the " + std::to_string(AsStored([](const auto &d) { return d.padded(); }, [](const auto &h) { return h.padded(); })) +
             " entries of 32-bit columns)";
    if (!Coded()) return "32-bit";
    return "8-bit codes into per-block dictionaries of offsets (" + std::to_string(DictEntries()) + " entries in all)";
  }

  PjdsParams   user_{};
  int          occupancy_ = 0; // -mat_pjds_occupancy (0: measured by the CUDA layer)
  LongShape shape_{}; // -mat_pjds_lanes, -mat_pjds_passes (0: by the long rows)
  PjdsChoice   choice_{};
  double       model_ms_ = 0;
};

} // namespace

std::unique_ptr<Format> CreatePjds() { return std::make_unique<PjdsFormat>(); }

} // namespace gpumat
