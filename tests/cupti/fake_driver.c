/* Plays the CUDA driver's part on a machine without one: loads $CUDA_INJECTION64_PATH and calls its
 * InitializeInjection twice (as cuInit would, once), then records one NVTX range, so the test can check
 * what the probe does with the real libcupti and no driver. FAKE_DRIVER_EXIT=_exit: then works until the probe's
 * periodic flush has taken the stand-in libcupti's buffer ($PERFSCOPE_CUPTI_PATH, tests/cupti/fake_libcupti.c)
 * and ends with _exit(0), as a program killed or ending without atexit handlers would; FAKE_DRIVER_EXIT=sigterm:
 * then gets a SIGTERM (as from a launcher) and waits for it to act. FAKE_DRIVER_DLOPEN=PATH: the program
 * loads PATH first (a CUDA 12 runtime, as a cu12x PyTorch wheel has it loaded before CUDA initialises). */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

int main(void)
{
    const char *pre = getenv("FAKE_DRIVER_DLOPEN");
    if (pre && !dlopen(pre, RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "fake_driver: cannot load %s: %s\n", pre, dlerror());
        return 1;
    }
    const char *path = getenv("CUDA_INJECTION64_PATH");
    void *h = path ? dlopen(path, RTLD_NOW) : NULL;
    int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
    if (!init) {
        fprintf(stderr, "fake_driver: no InitializeInjection in %s\n", path ? path : "(CUDA_INJECTION64_PATH unset)");
        return 1;
    }
    int a = init(), b = init();
    nvtxRangePushA("after_injection");
    nvtxRangePop();
    printf("init=%d again=%d\n", a, b);
    const char *how = getenv("FAKE_DRIVER_EXIT");
    if (how && !strcmp(how, "_exit")) {
        /* the probe loaded that libcupti: the same file, so RTLD_NOLOAD finds its copy */
        const char *cupti = getenv("PERFSCOPE_CUPTI_PATH");
        void *lib = cupti ? dlopen(cupti, RTLD_NOW | RTLD_NOLOAD) : NULL;
        int (*handed_over)(void) = lib ? (int (*)(void))dlsym(lib, "fake_cupti_handed_over") : NULL;
        if (!handed_over) {
            fprintf(stderr, "fake_driver: no fake_cupti_handed_over in %s\n", cupti ? cupti : "(PERFSCOPE_CUPTI_PATH unset)");
            return 1;
        }
        fflush(stdout);
        while (!handed_over())
            usleep(10000);
        _exit(a == 1 && b == 1 ? 0 : 1);
    }
    if (how && !strcmp(how, "sigterm")) {
        fflush(stdout);
        kill(getpid(), SIGTERM);
        for (;;)
            pause();            /* the probe flushes, then SIGTERM's default action ends the process */
    }
    return a == 1 && b == 1 ? 0 : 1;
}
