# Installation for other projects (included from the top CMakeLists.txt after the library target):
#   cmake --install build --prefix P
# installs P/lib/libpetscgpumat.so (and its soname links), P/include/petscgpumat.h, the CMake package
# P/lib/cmake/PetscGpuMat (find_package(PetscGpuMat) -> PetscGpuMat::petscgpumat) and the pkg-config
# file P/lib/pkgconfig/PetscGpuMat.pc. The static layers (petscgpumat_core, petscgpumat_cuda) are
# linked into the shared library PRIVATE-ly, so the package exports the shared library alone; its
# interface is the header's directory, PETSc (pkg-config PETSc) and MPI (C).
include(CMakePackageConfigHelpers)
set(GPUMAT_INSTALL_CMAKEDIR lib/cmake/PetscGpuMat)

# The installed library finds PETSc's libraries through its RUNPATH (INSTALL_RPATH: PETSc's library
# directories); with a CUDA PETSc also the CUDA runtime it links.
if(GPUMAT_PETSC_HAS_CUDA)
  set_property(TARGET petscgpumat APPEND PROPERTY INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
endif()

install(TARGETS petscgpumat EXPORT PetscGpuMatTargets
        LIBRARY DESTINATION lib)
install(FILES include/petscgpumat.h DESTINATION include)
install(EXPORT PetscGpuMatTargets NAMESPACE PetscGpuMat:: DESTINATION ${GPUMAT_INSTALL_CMAKEDIR})

# The PETSc this library was built against: its minor version must match the consumer's PETSc, and
# its pkg-config folder is the package's last resort when neither PKG_CONFIG_PATH nor
# PETSC_DIR/PETSC_ARCH names a PETSc.
gpumat_petsc_variable(GPUMAT_PETSC_PC_DIR pcfiledir) # cached: see CMakeLists.txt
string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" GPUMAT_PETSC_MAJOR_MINOR "${PETSC_VERSION}")
math(EXPR _gpumat_next_minor "${CMAKE_MATCH_2} + 1")
set(GPUMAT_PETSC_NEXT_MINOR "${CMAKE_MATCH_1}.${_gpumat_next_minor}")
string(JOIN ", " GPUMAT_FORMATS_LIST ${GPUMAT_FORMATS})
configure_package_config_file(cmake/PetscGpuMatConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/PetscGpuMatConfig.cmake
                              INSTALL_DESTINATION ${GPUMAT_INSTALL_CMAKEDIR}
                              NO_SET_AND_CHECK_MACRO NO_CHECK_REQUIRED_COMPONENTS_MACRO)
# 0.x: a new minor version may change the interface.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/PetscGpuMatConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/PetscGpuMatConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/PetscGpuMatConfigVersion.cmake
        DESTINATION ${GPUMAT_INSTALL_CMAKEDIR})

# pkg-config: prefix relative to the .pc file (pkg-config's ${pcfiledir}), so the tree can move.
configure_file(cmake/PetscGpuMat.pc.in ${CMAKE_CURRENT_BINARY_DIR}/PetscGpuMat.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/PetscGpuMat.pc DESTINATION lib/pkgconfig)
