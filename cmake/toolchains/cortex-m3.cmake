# Bare-metal Cortex-M3 (gcc-arm-none-eabi with newlib and its libstdc++), run
# under qemu-system-arm's MPS2 AN385 board model with semihosting: printf goes
# to the host's stdout and the program's exit status becomes qemu's. The
# program links tests/embedded/cortex_m (vector table, linker script).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m3 -mthumb")
set(CMAKE_CXX_FLAGS_INIT "-mcpu=cortex-m3 -mthumb")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=rdimon.specs -Wl,--gc-sections")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-system-arm -M mps2-an385 -nographic -semihosting -kernel)
