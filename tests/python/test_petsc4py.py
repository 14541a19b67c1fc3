#!/usr/bin/env python3
"""petsc-gpumat's types from petsc4py.

Loads the plugin (petsc4py.init(['-dll_append', LIB]), or ctypes calling PetscGpuMatInitialize
after a plain petsc4py.init()), then for each type, made once with Mat.setType(type) and once with
-mat_type through Mat.setFromOptions(): assembles a nonsymmetric convection-diffusion matrix row by
row (the rows of each rank), checks the type name, MatMult and MatMultTranspose against the same
matrix as AIJ, and a KSP solve (GMRES + Jacobi) against AIJ's: the same iteration count and the same
solution to -tol. Runs at any number of MPI ranks (mpiexec -n P python3 test_petsc4py.py ...).

Exit status: 0 all passed, 1 a check failed, 77 (CTest's SKIP_RETURN_CODE) petsc4py cannot be
imported and --require was not given (CMake passes --require where PETSc was built with petsc4py).
"""
import argparse
import ctypes
import os
import re
import sys

# every registered format (src/formats.def), the default of --types (CTest passes the same list)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "formats.def")) as _f:
    TYPES = ",".join(re.findall(r"^GPUMAT_FORMAT\(\s*(\w+)", _f.read(), re.M))


def parse():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="path of libpetscgpumat.so")
    ap.add_argument("--load", choices=["dll_append", "ctypes"], default="dll_append",
                    help="how the plugin is loaded: PETSc's -dll_append at petsc4py.init, or ctypes")
    ap.add_argument("--types", default=TYPES, help="comma-separated types (default: all)")
    ap.add_argument("--grid", type=int, default=40, help="grid points per dimension (rows = grid^2)")
    ap.add_argument("--tol", type=float, default=1e-8, help="relative tolerance of the solution")
    ap.add_argument("--require", action="store_true", help="fail instead of skipping without petsc4py")
    ap.add_argument("petsc_args", nargs="*", help="more PETSc options (after --)")
    return ap.parse_args()


def main():
    args = parse()
    args.lib = os.path.abspath(args.lib)  # dlopen searches the library path for a bare name
    try:
        import petsc4py
    except ImportError as e:
        if args.require:
            print(f"test_petsc4py: FAILED: petsc4py cannot be imported ({e}), but this PETSc was built with it")
            return 1
        print(f"test_petsc4py: SKIPPED: petsc4py cannot be imported ({e}); this PETSc was built without it")
        return 77

    init_args = list(args.petsc_args)
    if args.load == "dll_append":
        init_args = ["-dll_append", args.lib] + init_args
    petsc4py.init(init_args)
    from petsc4py import PETSc

    if args.load == "ctypes":
        # the same libpetsc as petsc4py's (the plugin's RUNPATH names the PETSc it was built with)
        lib = ctypes.CDLL(args.lib, mode=ctypes.RTLD_GLOBAL)
        rc = lib.PetscGpuMatInitialize()
        if rc != 0:
            print(f"test_petsc4py: FAILED: PetscGpuMatInitialize returned {rc}")
            return 1

    comm = PETSc.COMM_WORLD
    size, rank = comm.getSize(), comm.getRank()
    level = "seq" if size == 1 else "mpi"
    m = args.grid
    n = m * m

    def assemble(A):
        """2D convection-diffusion, 5 points, upwind: nonsymmetric, diagonally dominant."""
        A.setPreallocationNNZ((5, 4))
        rstart, rend = A.getOwnershipRange()
        for row in range(rstart, rend):
            i, j = divmod(row, m)
            cols, vals = [row], [4.0 + 0.3]
            for (ii, jj, v) in ((i - 1, j, -1.0 - 0.3), (i + 1, j, -1.0), (i, j - 1, -1.0), (i, j + 1, -1.0)):
                if 0 <= ii < m and 0 <= jj < m:
                    cols.append(ii * m + jj)
                    vals.append(v + 0.01 * ((row * 7 + ii * 3 + jj) % 5))
            A.setValues([row], cols, vals)
        A.assemble()
        return A

    def make(mat_type, route):
        A = PETSc.Mat().create(comm=comm)
        A.setSizes([n, n])
        if route == "setType":
            A.setType(mat_type)
        else:  # -mat_type, under a prefix of its own so the other matrices keep theirs
            A.setOptionsPrefix("gpumat_")
            PETSc.Options().setValue("gpumat_mat_type", mat_type)
            A.setFromOptions()
            PETSc.Options().delValue("gpumat_mat_type")
        return assemble(A)

    def solve(A, b):
        ksp = PETSc.KSP().create(comm=comm)
        ksp.setOperators(A, A)
        ksp.setType(PETSc.KSP.Type.GMRES)
        ksp.getPC().setType(PETSc.PC.Type.JACOBI)
        ksp.setTolerances(rtol=1e-10, max_it=10000)
        ksp.setFromOptions()
        x = b.duplicate()
        ksp.solve(b, x)
        its, reason = ksp.getIterationNumber(), ksp.getConvergedReason()
        ksp.destroy()
        return x, its, reason

    ref = make("aij", "setType")
    xr, br = ref.createVecs()
    xr.setRandom(PETSc.Random().create(comm=comm))
    yref, tref = ref * xr, br.duplicate()
    ref.multTranspose(xr, tref)
    sref, its_ref, reason_ref = solve(ref, yref)
    if reason_ref <= 0 or its_ref == 0:
        print(f"test_petsc4py: FAILED: AIJ's solve did not converge (reason {reason_ref}, {its_ref} iterations)")
        return 1
    PETSc.Sys.Print(f"aij: {n} rows, {ref.getInfo()['nz_used']:.0f} nonzeros, {size} rank(s); GMRES + Jacobi {its_ref} iterations")

    passed = failed = 0
    for mat_type in [t for t in args.types.split(",") if t]:
        for route in ("setType", "-mat_type"):
            what = f"{mat_type} ({route})"
            problems = []
            try:
                A = make(mat_type, route)
                want = f"{level}aij{mat_type}"
                if A.getType() != want:
                    problems.append(f"type {A.getType()}, not {want}")
                y, t = A * xr, tref.duplicate()
                A.multTranspose(xr, t)
                for name, got, exp in (("MatMult", y, yref), ("MatMultTranspose", t, tref)):
                    err = (got - exp).norm() / exp.norm()
                    if err > 1e-14:
                        problems.append(f"{name} differs from AIJ's by {err:.2e}")
                s, its, reason = solve(A, yref)
                diff = (s - sref).norm() / sref.norm()
                if reason <= 0 or its != its_ref or diff > args.tol:
                    problems.append(f"KSP: {its} iterations (AIJ {its_ref}), reason {reason}, solution differs by {diff:.2e}")
                back = A.convert("aij")  # and back to AIJ: the same matrix
                if not back.equal(ref):
                    problems.append("MatConvert to aij gives another matrix")
                for obj in (A, y, t, s, back):
                    obj.destroy()
            except PETSc.Error as e:
                problems.append(f"PETSc error {e}")
            if problems:
                failed += 1
                PETSc.Sys.Print(f"FAIL {what}: " + "; ".join(problems))
            else:
                passed += 1
                PETSc.Sys.Print(f"ok   {what}: {want}, MatMult and MatMultTranspose as AIJ's, KSP {its} iterations, solution within {diff:.1e}")
    PETSc.Sys.Print(f"test_petsc4py: {passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
