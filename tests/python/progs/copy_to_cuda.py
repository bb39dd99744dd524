# Host-to-device copies on a build of torch without CUDA: each raises, and the program sees the same error it
# would without perfscope. Prints the errors' types and messages.
import torch

x = torch.ones(1000, dtype=torch.float32)       # 4000 bytes, pageable
for call in (lambda: x.to("cuda", non_blocking=True), lambda: x.cuda(), lambda: x.to(torch.float64)):
    try:
        y = call()
        print("ok", y.dtype, y.device)
    except Exception as e:
        print(type(e).__name__, e)
