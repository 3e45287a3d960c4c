# Run by `cmake --install` and by CPack (install(SCRIPT) in cmake/install.cmake): the files whose place or content
# follows the prefix given at install time (`cmake --install --prefix`, CPack's /usr), not the configured one.
#   - the systemd unit, naming PREFIX/bin/gpuwatch and the config file;
#   - the config, in /etc/gpuwatch with PREFIX=/usr (the .deb's conffile), else PREFIX/etc/gpuwatch. An existing
#     one is an admin's: it is kept, and the example stays in share/doc/gpuwatch/examples.
# DESTDIR is honoured by file(INSTALL) itself.

if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(GPUWATCH_SYSCONFDIR "/etc")
else()
  set(GPUWATCH_SYSCONFDIR "${CMAKE_INSTALL_PREFIX}/etc")
endif()
set(GPUWATCH_BINDIR "${CMAKE_INSTALL_PREFIX}/${GPUWATCH_INSTALL_BINDIR}")
set(GPUWATCH_DOCDIR "${CMAKE_INSTALL_PREFIX}/${GPUWATCH_INSTALL_DOCDIR}")

string(MD5 prefix_key "$ENV{DESTDIR}|${CMAKE_INSTALL_PREFIX}")  # one file per install, so two at once never share it
set(generated "${GPUWATCH_INSTALL_FILES}/${prefix_key}")
configure_file("${GPUWATCH_PACKAGING_DIR}/systemd/gpuwatch.service.in" "${generated}/gpuwatch.service" @ONLY)
file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/lib/systemd/system" TYPE FILE FILES "${generated}/gpuwatch.service")

set(config "$ENV{DESTDIR}${GPUWATCH_SYSCONFDIR}/gpuwatch/gpuwatch.yaml")
if(EXISTS "${config}")
  message(STATUS "Keeping: ${config}")
else()
  file(INSTALL DESTINATION "${GPUWATCH_SYSCONFDIR}/gpuwatch" TYPE FILE
       FILES "${GPUWATCH_PACKAGING_DIR}/config/gpuwatch.yaml")
endif()
