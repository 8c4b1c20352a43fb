# Finds every third-party dependency, all from Debian 12 packages
# (tools/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED)                 # Boost::headers (Asio); no `system` component
find_package(nlohmann_json 3.10 REQUIRED)
find_package(simdjson REQUIRED)                   # the request decoder: ~0.1 us a line (nlohmann: ~1.3)
find_package(CLI11 2.1 REQUIRED)
find_package(spdlog REQUIRED)
find_package(tomlplusplus REQUIRED)
find_package(ZLIB REQUIRED)                       # gzip logs read directly by locsched-tail
find_package(OpenSSL 3 REQUIRED)                  # TLS on the HA TCP listener and its clients
find_package(PkgConfig REQUIRED)
pkg_check_modules(SYSTEMD REQUIRED IMPORTED_TARGET libsystemd)

# LEMON 1.3.1 ships no usable target: wrap the library ourselves.
find_path(LEMON_INCLUDE_DIR lemon/preflow.h REQUIRED)
find_library(LEMON_LIBRARY NAMES emon lemon REQUIRED)
add_library(locsched_lemon INTERFACE)
target_include_directories(locsched_lemon SYSTEM INTERFACE ${LEMON_INCLUDE_DIR})
target_link_libraries(locsched_lemon INTERFACE ${LEMON_LIBRARY})

# GLPK has neither a CMake config nor a .pc file.
find_path(GLPK_INCLUDE_DIR glpk.h REQUIRED)
find_library(GLPK_LIBRARY glpk REQUIRED)
add_library(locsched_glpk INTERFACE)
target_include_directories(locsched_glpk SYSTEM INTERFACE ${GLPK_INCLUDE_DIR})
target_link_libraries(locsched_glpk INTERFACE ${GLPK_LIBRARY})

# ZooKeeper's C client (libzookeeper-mt-dev; no CMake config or .pc file): the
# coordination service of high-availability mode (io/coord).
find_path(ZOOKEEPER_INCLUDE_DIR zookeeper/zookeeper.h REQUIRED)
find_library(ZOOKEEPER_LIBRARY zookeeper_mt REQUIRED)
add_library(locsched_zookeeper INTERFACE)
target_include_directories(locsched_zookeeper SYSTEM INTERFACE ${ZOOKEEPER_INCLUDE_DIR})
target_link_libraries(locsched_zookeeper INTERFACE ${ZOOKEEPER_LIBRARY} Threads::Threads)

if(LOCSCHED_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)                 # v2: <catch2/catch.hpp>
  include(Catch)
endif()
if(LOCSCHED_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
