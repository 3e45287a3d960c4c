# Where an installed gpuwatch keeps its files, relative to the install prefix (GNUInstallDirs' names). Included
# before the parts are added: the binary finds the simulator through GPUWATCH_SIM_FROM_BINDIR.
include(GNUInstallDirs)

# The simulator stays in gpuwatch's own folder, never on the library path, where its libnvidia-ml.so.1 would
# shadow the driver's for every NVML program on the machine.
set(GPUWATCH_INSTALL_SIMDIR "lib/gpuwatch/sim")
# Optional parts the binary loads only when configured (the kubelet, remote-write, terminal and calendar
# modules), beside the simulator's folder.
set(GPUWATCH_INSTALL_MODULEDIR "lib/gpuwatch")
set(GPUWATCH_INSTALL_SCENARIODIR "${CMAKE_INSTALL_DATADIR}/gpuwatch/scenarios")
file(RELATIVE_PATH GPUWATCH_SIM_FROM_BINDIR "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${GPUWATCH_INSTALL_SIMDIR}")
file(RELATIVE_PATH GPUWATCH_MODULES_FROM_BINDIR "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${GPUWATCH_INSTALL_MODULEDIR}")
