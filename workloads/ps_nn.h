/* ps_nn.h — the reference workloads' training library: the few tensor operations an MLP step needs
 * (GEMM, bias+ReLU, softmax cross-entropy, SGD, ...) behind one table of backend operations, so that
 * train.c runs the same step on the plain C backend (the CPU is the "device") and on the CUDA backend. */
#ifndef PS_NN_H
#define PS_NN_H

#include <stddef.h>
#include <stdint.h>

/* The operations ("kernels") a backend runs. The CUDA backend launches exactly one kernel per call,
 * named as in ps_nn_kernel_names[] (extern "C", so the trace shows the same name unmangled). */
enum ps_nn_kernel {
    PS_NN_K_GEMM_NN,    /* C = A B */
    PS_NN_K_GEMM_TN,    /* C = A^T B */
    PS_NN_K_GEMM_NT,    /* C = A B^T */
    PS_NN_K_BIAS_RELU,  /* y = relu(y + b) (or y + b) */
    PS_NN_K_RELU_GRAD,  /* dy *= (y > 0) */
    PS_NN_K_COL_SUM,    /* bias gradient: column sums */
    PS_NN_K_SOFTMAX_CE, /* softmax cross-entropy: per-row loss and d(mean loss)/d(logits) */
    PS_NN_K_SGD,        /* w -= lr g */
    PS_NN_K_CROP,       /* device-side crop of uploaded images */
    PS_NN_K_COUNT
};
extern const char *const ps_nn_kernel_names[PS_NN_K_COUNT];

/* How host buffers reach the device. PINNED: host buffers come from host_alloc (page-locked on CUDA)
 * and copies are asynchronous on a copy stream. PAGEABLE: plain malloc'ed buffers and synchronous
 * copies (on CUDA cudaMemcpy, which stages through the driver's bounce buffer; the C backend models
 * that path with an explicit bounce buffer, see ps_nn_cpu.c). */
enum ps_nn_copy_mode { PS_NN_PINNED, PS_NN_PAGEABLE };

/* Exact counts of what the backend did, for comparison with a trace's kernel and memcpy rows. */
struct ps_nn_stats {
    uint64_t kernels[PS_NN_K_COUNT]; /* calls (CUDA: kernel launches) per operation */
    uint64_t h2d_bytes, h2d_copies;  /* host -> device */
    uint64_t d2h_bytes, d2h_copies;  /* device -> host */
    uint64_t syncs;                  /* device-wide synchronisations requested */
};

struct ps_nn;

/* A backend's operations. Pointers named d_* are device buffers from alloc; all matrices are
 * row-major float32. Every int-returning operation returns 0 or -errno (-EIO for a device error,
 * after writing a message to stderr that names the operation). */
struct ps_nn_ops {
    const char *name; /* "cpu" or "cuda" */
    void *(*alloc)(struct ps_nn *nn, size_t bytes);      /* device buffer or NULL */
    void (*release)(struct ps_nn *nn, void *d_ptr);      /* NULL is a no-op */
    void *(*host_alloc)(struct ps_nn *nn, size_t bytes); /* staging buffer for this copy mode */
    void (*host_release)(struct ps_nn *nn, void *ptr);
    int (*h2d)(struct ps_nn *nn, void *d_dst, const void *src, size_t bytes);
    int (*d2h)(struct ps_nn *nn, void *dst, const void *d_src, size_t bytes);
    /* C[m,n] (= or +=, per accumulate) op(A) op(B); op(A) is [m,k]: A is [m,k], or [k,m] when ta;
     * op(B) is [k,n]: B is [k,n], or [n,k] when tb. ta && tb is not supported (-EINVAL). */
    int (*gemm)(struct ps_nn *nn, int ta, int tb, int m, int n, int k, const float *d_a,
                const float *d_b, float *d_c, int accumulate);
    int (*bias_relu)(struct ps_nn *nn, float *d_y, const float *d_b, int rows, int cols, int relu);
    int (*relu_grad)(struct ps_nn *nn, float *d_dy, const float *d_y, size_t n);
    int (*col_sum)(struct ps_nn *nn, float *d_out, const float *d_x, int rows, int cols,
                   int accumulate);
    /* logits [rows, classes], labels [rows] in 0..classes-1 (out-of-range labels count as 0-prob:
     * the caller guarantees they are in range). row_loss[r] = -log softmax(logits[r])[label[r]];
     * dlogits = (softmax - onehot) * scale (scale = 1/total rows of the batch). */
    int (*softmax_ce)(struct ps_nn *nn, const float *d_logits, const int32_t *d_labels, int rows,
                      int classes, float scale, float *d_dlogits, float *d_row_loss);
    int (*sgd)(struct ps_nn *nn, float *d_w, const float *d_g, size_t n, float lr);
    /* dst [n, ch, cw] = src [n, h, w] rows y0.. and columns x0.. (the caller keeps the window
     * inside the image). */
    int (*crop)(struct ps_nn *nn, float *d_dst, const float *d_src, int n, int h, int w, int y0,
                int x0, int ch, int cw);
    int (*sync)(struct ps_nn *nn); /* wait until all queued device work and copies are done */
    void (*close)(struct ps_nn *nn);
};

struct ps_nn {
    const struct ps_nn_ops *ops;
    void *impl;                 /* backend state */
    enum ps_nn_copy_mode copy_mode;
    int sync_every_kernel;      /* the sync-bound scenario: a device synchronise after every kernel */
    struct ps_nn_stats stats;
};

/* Open the C backend. Never fails except for memory (-ENOMEM). */
int ps_nn_open_cpu(struct ps_nn *nn, enum ps_nn_copy_mode mode);

/* Open the CUDA backend on device 0. Returns -ENOSYS when this build has no CUDA backend, -ENODEV
 * when no device is usable (no driver, no GPU); in both cases why[] says what happened. */
int ps_nn_open_cuda(struct ps_nn *nn, enum ps_nn_copy_mode mode, char *why, size_t why_len);

/* Wrappers that count every operation in nn->stats and apply sync_every_kernel; use these, not the
 * table. Same contracts as the ops above. */
int ps_nn_h2d(struct ps_nn *nn, void *d_dst, const void *src, size_t bytes);
int ps_nn_d2h(struct ps_nn *nn, void *dst, const void *d_src, size_t bytes);
int ps_nn_gemm(struct ps_nn *nn, int ta, int tb, int m, int n, int k, const float *d_a,
               const float *d_b, float *d_c, int accumulate);
int ps_nn_bias_relu(struct ps_nn *nn, float *d_y, const float *d_b, int rows, int cols, int relu);
int ps_nn_relu_grad(struct ps_nn *nn, float *d_dy, const float *d_y, size_t n);
int ps_nn_col_sum(struct ps_nn *nn, float *d_out, const float *d_x, int rows, int cols,
                  int accumulate);
int ps_nn_softmax_ce(struct ps_nn *nn, const float *d_logits, const int32_t *d_labels, int rows,
                     int classes, float scale, float *d_dlogits, float *d_row_loss);
int ps_nn_sgd(struct ps_nn *nn, float *d_w, const float *d_g, size_t n, float lr);
int ps_nn_crop(struct ps_nn *nn, float *d_dst, const float *d_src, int n, int h, int w, int y0,
               int x0, int ch, int cw);
int ps_nn_sync(struct ps_nn *nn);

/* Total kernels (operations) run so far. */
uint64_t ps_nn_kernels_total(const struct ps_nn *nn);

/* Close the backend; nn may be zeroed or already closed (no-op). */
void ps_nn_close(struct ps_nn *nn);

#endif
