# The tools' --mpi mode under a real mpirun (configure --with-mpi; scripts/test
# installs OpenMPI and passes it): tests/mpi/mpi_import_test.sh. The library's
# side of a shared report is tested without MPI in tests/unit/share_test.
if HAVE_MPI
if HAVE_OTF2
TESTS += tests/mpi/mpi_import_test.sh
AM_TESTS_ENVIRONMENT += NVTXW_MPIRUN="$(MPIRUN)"; export NVTXW_MPIRUN;
endif
endif
EXTRA_DIST += tests/mpi/local.mk tests/mpi/mpi_import_test.sh tests/mpi/same_text.py
