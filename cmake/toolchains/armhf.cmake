# Cross build for armhf, the 32-bit hard-float ABI of Raspberry Pi OS / Raspbian
# (Debian's g++-arm-linux-gnueabihf: ARMv7-A, VFPv3-D16, Thumb-2; the Pi 2 and
# later). Tests run under qemu-user with the target's libraries
# (libc6-armhf-cross). GoogleTest is built from source for the target: pass
# -DALLOCLAB_GTEST_SOURCE_DIR=/usr/src/googletest (scripts/cross-tests.sh does).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)
set(CMAKE_FIND_ROOT_PATH /usr/arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# GCC 7.1 changed how some structs are passed on ARM: a note for every
# std::vector instantiation, irrelevant when everything is built with one compiler.
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm -L /usr/arm-linux-gnueabihf)
