/* A stand-in CUDA runtime for the loader tests: only its file name and soname matter (libcudart.so.12 or .13, as
 * tests/cupti/CMakeLists.txt builds it); cudaRuntimeGetVersion answers the version it was built for. */
#define EXPORT __attribute__((visibility("default")))

EXPORT int cudaRuntimeGetVersion(int *version)
{
    *version = FAKE_CUDART_VERSION;
    return 0;
}
