# Install rules, shared by `make install` (cmake --install: PREFIX and DESTDIR honoured) and the .deb (CPack,
# `make deb`). Under PREFIX:
#
#   bin/gpuwatch                                 the agent and its commands
#   lib/gpuwatch/sim/libnvml-sim.so              the NVML simulator, and libnvidia-ml.so.1 -> libnvml-sim.so, the
#                                                "one next to gpuwatch" that --sim-scenario loads; never on the
#                                                library path, where it would shadow the driver's NVML
#   lib/gpuwatch/gpuwatch-http-server.so         the HTTP server's event loop for plain HTTP (Boost.Beast) and basic
#                                                auth's bcrypt (libcrypt), loaded when the agent starts serving
#   lib/gpuwatch/gpuwatch-tls-server.so          the event loop for TLS (libmicrohttpd, GnuTLS), loaded only when
#                                                the server has a certificate
#   lib/gpuwatch/gpuwatch-kubelet.so             the kubelet module (gRPC, protobuf), loaded only when a
#                                                pod-resources socket is configured
#   lib/gpuwatch/gpuwatch-remote-write.so        the remote-write module (protobuf, snappy), loaded only when a
#                                                receiver is configured
#   lib/gpuwatch/gpuwatch-terminal.so            the terminal module (ncurses), loaded by `gpuwatch top` only
#   lib/gpuwatch/gpuwatch-calendar.so            the calendar module (abseil's civil time), loaded only for a
#                                                calendar-aligned SLO period
#   lib/gpuwatch/gpuwatch-tls-client.so          the TLS client module (OpenSSL), loaded only to ask an https://
#                                                URL
#   share/gpuwatch/scenarios/*.yaml              the simulator's scenarios (game days, trying gpuwatch out)
#   share/gpuwatch/grafana/*.json                the Grafana dashboards (deploy/grafana)
#   share/doc/gpuwatch/                          README, install and configuration guides, runbooks (the binary
#                                                embeds them too), example config and systemd drop-ins
#   share/man/man1/gpuwatch.1.gz                 the manual page
#   lib/systemd/system/gpuwatch.service          the hardened unit (its paths follow the prefix)
#   lib/sysusers.d/gpuwatch.conf                 the service's user, for systemd-sysusers
#   etc/gpuwatch/gpuwatch.yaml                   the config: /etc/gpuwatch with PREFIX=/usr; an edited one is kept
#
# Install-time files (the unit and the config, whose place or content follows the prefix given at install time,
# which may differ from the configured one) are written by cmake/install_system_files.cmake.

set(GPUWATCH_PACKAGING_DIR ${PROJECT_SOURCE_DIR}/packaging)
set(GPUWATCH_INSTALL_FILES ${PROJECT_BINARY_DIR}/install-files)
file(MAKE_DIRECTORY ${GPUWATCH_INSTALL_FILES})

install(TARGETS gpuwatch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS nvml_sim LIBRARY DESTINATION ${GPUWATCH_INSTALL_SIMDIR})
install(TARGETS gpuwatch_http_server_module LIBRARY DESTINATION ${GPUWATCH_INSTALL_MODULEDIR})
install(TARGETS gpuwatch_tls_server_module LIBRARY DESTINATION ${GPUWATCH_INSTALL_MODULEDIR})
install(TARGETS gpuwatch_kubelet_module LIBRARY DESTINATION ${GPUWATCH_INSTALL_MODULEDIR})
install(TARGETS gpuwatch_remote_write_module LIBRARY DESTINATION ${GPUWATCH_INSTALL_MODULEDIR})
install(TARGETS gpuwatch_terminal_module LIBRARY DESTINATION ${GPUWATCH_INSTALL_MODULEDIR})
install(TARGETS gpuwatch_calendar_module LIBRARY DESTINATION ${GPUWATCH_INSTALL_MODULEDIR})
install(TARGETS gpuwatch_tls_client_module LIBRARY DESTINATION ${GPUWATCH_INSTALL_MODULEDIR})
# A stripped install (`cmake --install --strip`, the .deb) also drops the compiler's .comment notes, as dh_strip does.
install(CODE "
  if(CMAKE_INSTALL_DO_STRIP)
    foreach(file ${CMAKE_INSTALL_BINDIR}/gpuwatch ${GPUWATCH_INSTALL_SIMDIR}/libnvml-sim.so
                 ${GPUWATCH_INSTALL_MODULEDIR}/gpuwatch-http-server.so ${GPUWATCH_INSTALL_MODULEDIR}/gpuwatch-tls-server.so
                 ${GPUWATCH_INSTALL_MODULEDIR}/gpuwatch-kubelet.so ${GPUWATCH_INSTALL_MODULEDIR}/gpuwatch-remote-write.so
                 ${GPUWATCH_INSTALL_MODULEDIR}/gpuwatch-terminal.so ${GPUWATCH_INSTALL_MODULEDIR}/gpuwatch-calendar.so
                 ${GPUWATCH_INSTALL_MODULEDIR}/gpuwatch-tls-client.so)
      execute_process(COMMAND \"${CMAKE_STRIP}\" --remove-section=.comment --remove-section=.note
                              \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/\${file}\" COMMAND_ERROR_IS_FATAL ANY)
    endforeach()
  endif()")
# The name NVML clients load (and the simulator's soname), as the build tree's sim-lib/ has it.
file(CREATE_LINK libnvml-sim.so ${GPUWATCH_INSTALL_FILES}/libnvidia-ml.so.1 SYMBOLIC)
install(FILES ${GPUWATCH_INSTALL_FILES}/libnvidia-ml.so.1 DESTINATION ${GPUWATCH_INSTALL_SIMDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${GPUWATCH_INSTALL_SCENARIODIR}
        FILES_MATCHING PATTERN "*.yaml" PATTERN "tests" EXCLUDE)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/deploy/grafana/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuwatch/grafana
        FILES_MATCHING PATTERN "*.json")

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/install.md
              ${PROJECT_SOURCE_DIR}/docs/configuration.md ${PROJECT_SOURCE_DIR}/docs/alerting.md
              ${PROJECT_SOURCE_DIR}/docs/metrics.md ${GPUWATCH_PACKAGING_DIR}/debian/copyright
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/runbooks/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/runbooks
        FILES_MATCHING PATTERN "*.md")
install(FILES ${GPUWATCH_PACKAGING_DIR}/config/gpuwatch.yaml DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(FILES ${GPUWATCH_PACKAGING_DIR}/systemd/examples/kernel-log.conf
              ${GPUWATCH_PACKAGING_DIR}/systemd/examples/process-libraries.conf
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/gpuwatch.service.d)
install(FILES ${GPUWATCH_PACKAGING_DIR}/systemd/gpuwatch.sysusers DESTINATION lib/sysusers.d RENAME gpuwatch.conf)
install(FILES ${GPUWATCH_PACKAGING_DIR}/debian/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
        RENAME gpuwatch)

# The manual page and the package's changelog, compressed as Debian wants them (gzip -9n: no name, no time).
find_program(GPUWATCH_GZIP gzip REQUIRED)
set(gzipped "")
foreach(pair "man/gpuwatch.1|gpuwatch.1.gz" "debian/changelog|changelog.gz")
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 source)
  list(GET pair 1 output)
  add_custom_command(OUTPUT ${GPUWATCH_INSTALL_FILES}/${output}
    COMMAND ${GPUWATCH_GZIP} -9nc ${GPUWATCH_PACKAGING_DIR}/${source} > ${GPUWATCH_INSTALL_FILES}/${output}
    DEPENDS ${GPUWATCH_PACKAGING_DIR}/${source} VERBATIM)
  list(APPEND gzipped ${GPUWATCH_INSTALL_FILES}/${output})
endforeach()
add_custom_target(gpuwatch_install_files ALL DEPENDS ${gzipped})
install(FILES ${GPUWATCH_INSTALL_FILES}/gpuwatch.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${GPUWATCH_INSTALL_FILES}/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})

install(CODE "
  set(GPUWATCH_PACKAGING_DIR \"${GPUWATCH_PACKAGING_DIR}\")
  set(GPUWATCH_INSTALL_FILES \"${GPUWATCH_INSTALL_FILES}\")
  set(GPUWATCH_INSTALL_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
  set(GPUWATCH_INSTALL_DOCDIR \"${CMAKE_INSTALL_DOCDIR}\")")
install(SCRIPT ${PROJECT_SOURCE_DIR}/cmake/install_system_files.cmake)

# The .deb: `make deb` (or `cpack -G DEB` in the build tree), from the install rules above with PREFIX=/usr.
set(GPUWATCH_PACKAGE_MAINTAINER "gpuwatch maintainers <maintainers@gpuwatch.invalid>"
    CACHE STRING "Maintainer field of the .deb")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpuwatch)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${GPUWATCH_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU observability agent: metrics, history, failure detection")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The shared libraries the binary and the simulator link are found by dpkg-shlibdeps; adduser for the postinst.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
# The NVIDIA driver's NVML (Debian's package name); without it the agent reports GpuMonitoringDown.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libnvidia-ml1")
# CPack writes the summary as the synopsis and indents each line of this below it ("." is an empty line).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "gpuwatch measures every GPU on a host and explains what it sees. It reads
NVIDIA GPUs through NVML (the driver's libnvidia-ml.so.1, loaded at run
time), serves Prometheus metrics (its own names or dcgm-exporter's), keeps
its own compressed history queried with PromQL, attributes GPU use to
processes, containers, pods and jobs, and detects the known GPU failure
modes with an alert and a runbook for each.
.
The package runs the agent as the gpuwatch user under a hardened systemd
unit, with its settings in /etc/gpuwatch/gpuwatch.yaml. It also ships
libnvml-sim, an NVML simulator driven by scenario files, in gpuwatch's own
folder (not on the library path), for trying gpuwatch without a GPU.")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${GPUWATCH_PACKAGING_DIR}/debian/postinst ${GPUWATCH_PACKAGING_DIR}/debian/prerm
  ${GPUWATCH_PACKAGING_DIR}/debian/postrm ${GPUWATCH_PACKAGING_DIR}/debian/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
include(CPack)
