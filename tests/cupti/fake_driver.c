/* Plays the CUDA driver's part on a machine without one: loads $CUDA_INJECTION64_PATH and calls its
 * InitializeInjection twice (as cuInit would, once), then records one NVTX range, so the test can check
 * what the probe does with the real libcupti and no driver. FAKE_DRIVER_EXIT=_exit: then works 1.5 s and ends
 * with _exit(0), as a program killed or ending without atexit handlers would; FAKE_DRIVER_EXIT=sigterm: then
 * gets a SIGTERM (as from a launcher) and waits for it to act. FAKE_DRIVER_DLOPEN=PATH: the program loads PATH first
 * (a CUDA 12 runtime, as a cu12x PyTorch wheel has it loaded before CUDA initialises). */
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
        fflush(stdout);
        usleep(1500000);
        _exit(a == 1 && b == 1 ? 0 : 1);
    }
    if (how && !strcmp(how, "sigterm")) {
        fflush(stdout);
        kill(getpid(), SIGTERM);
        for (int i = 0; i < 50; i++)
            usleep(100000);     /* the default action ends the process long before */
        return 2;
    }
    return a == 1 && b == 1 ? 0 : 1;
}
