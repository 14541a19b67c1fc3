# Builds lib/libpetscgpumat.so (or ${LIBDIR}/, objects in ${OBJ}/) with PETSc's own make system (CMake is the main build):
#   make PETSC_DIR=/path/to/petsc [PETSC_ARCH=arch]
# Compilers and flags come from PETSc's conf/variables; the CUDA layer is built when that PETSc has
# CUDA (sm_90 unless GPUMAT_CUDA_ARCH says otherwise).
LIBDIR ?= lib
all: ${LIBDIR}/libpetscgpumat.so

ifeq ($(strip ${PETSC_DIR}),)
$(error PETSC_DIR is not set: pass PETSC_DIR=/path/to/petsc [PETSC_ARCH=arch], or take the project's PETSc with eval "$$(bash conf/petsc.sh cpu --env)" (cuda for the CUDA one); CMake is the main build (README))
endif
ifeq ($(wildcard ${PETSC_DIR}/lib/petsc/conf/variables),)
$(error ${PETSC_DIR}/lib/petsc/conf/variables not found: PETSC_DIR must be an installed PETSc (or a PETSc source tree with PETSC_ARCH))
endif

include ${PETSC_DIR}/lib/petsc/conf/variables
include ${PETSC_DIR}/lib/petsc/conf/rules

GPUMAT_CUDA_ARCH ?= 90
OBJ       ?= build-make
HAVE_CUDA := $(shell printf '\#include <petscconf.h>\n' | ${CXX} ${PETSC_CC_INCLUDES} -dM -E -x c++ - | grep -c 'define PETSC_HAVE_CUDA 1')
SRCS      := $(wildcard src/core/*.cpp) $(wildcard src/petsc/*.cxx)
DEFS      := -Isrc -Iinclude
ifeq (${HAVE_CUDA},1)
SRCS      += $(wildcard src/cuda/*.cu)
DEFS      += -DGPUMAT_WITH_CUDA=1
endif
OBJS      := $(addprefix ${OBJ}/,$(addsuffix .o,$(basename ${SRCS})))

${OBJ}/%.o: %.cpp
	@mkdir -p $(@D)
	${CXX} -c ${CXX_FLAGS} ${DEFS} ${PETSC_CC_INCLUDES} $< -o $@
${OBJ}/%.o: %.cxx
	@mkdir -p $(@D)
	${CXX} -c ${CXX_FLAGS} ${DEFS} ${PETSC_CC_INCLUDES} $< -o $@
${OBJ}/%.o: %.cu
	@mkdir -p $(@D)
	${CUDAC} -c ${CUDAC_FLAGS} -arch=sm_${GPUMAT_CUDA_ARCH} --expt-relaxed-constexpr ${DEFS} ${PETSC_CC_INCLUDES} $< -o $@

${LIBDIR}/libpetscgpumat.so: ${OBJS}
	@mkdir -p ${LIBDIR}
	${CXX_LINKER} -shared -o $@ ${OBJS} ${PETSC_LIB}

clean::
	rm -rf ${OBJ} ${LIBDIR}

.PHONY: all
