#!/usr/bin/env bash
# The GPU check's dry run (ctest gpu_check_dry_run_reaches_every_check): tests/gpu/pack.sh packs this build as it
# would be carried, then tests/gpu/run.sh runs on the packed copy with DRY_RUN=1 on this machine without a GPU: a
# stand-in nvidia-smi (tests/gpu/fake-nvidia-smi) and the test NVML (tests/tui/nvml_standin.c) answer for one H200,
# train runs its C backend. Checked: every check of the real run is printed once, with a well-formed line; those
# that need no device pass (driver and NVML comparisons, the binaries resolve, each scenario records, the fixed
# cost, NVML samples in the trace); those that need one fail saying why; the last line is `N passed, N failed`
# with N the counts above and the exit status the failed count; $OUT holds what a device tool copies back (at most
# 8 files, 16 MiB each) and checks.json / reports.json parse. A sanitizer build is run in place (pack.sh refuses it).
# Usage: dry_run_test.sh SOURCE_DIR BUILD_DIR NVML_STANDIN_DIR WORK_DIR
set -u
src=$1 build=$2 standin=$3 work=$4
rm -rf "$work" && mkdir -p "$work/bin" "$work/out" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
if grep -q '^PS_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
    carried=$build
else
    "$src/tests/gpu/pack.sh" "$build" "$work/build-gpu" >"$work/pack.log" 2>&1 || fail "pack.sh: $(cat "$work/pack.log")"
    carried=$work/build-gpu
    grep -q "^[0-9]* cli/perfscope$" "$carried/MANIFEST.txt" || fail "MANIFEST.txt lists no perfscope"
fi
ln -s "$src/tests/gpu/fake-nvidia-smi" "$work/bin/nvidia-smi"
cat >"$work/h200.nvml" <<'S'
count=1
gpu0.name=NVIDIA H200
gpu0.util=0,0
gpu0.mem=17179869184,150754820096
gpu0.temp=31
gpu0.power=90000
gpu0.power_limit=700000
gpu0.uuid=GPU-5a000000-0000-0000-0000-000000000077
gpu0.pci=00000000:19:00.0
gpu0.procs=
S
cd "$src" || exit 1
env PATH="$work/bin:$PATH" LD_LIBRARY_PATH="$standin" PS_NVML_STANDIN="$work/h200.nvml" OUT="$work/out" \
    WORK="$work/work" DRY_RUN=1 SCENARIO_STEPS=5 OVH_RUN_S=1 BUDGET_S=30 LIMIT_S=300 \
    tests/gpu/run.sh "$carried" >"$work/stdout" 2>"$work/stderr"
rc=$?
out=$work/stdout

# every check of a real run, once
scenarios="data-bound memcpy-bound kernel-bound sync-bound balanced"
names="driver_version ldd_perfscope ldd_libperfscope_probe.so ldd_train ldd_cuda_kernels top_nvml_matches_nvidia_smi
libcupti_found cupti_known_work_rows train_backend record_fixed_cost record_overhead_balanced
probe_cost_per_kernel_launch gpu_device_rows_kernel-bound nvml_samples_join_gpu_kernel-bound
nvml_process_sm_util_kernel-bound torch_cuda gpu_times_pytorch_w8 stream_order_pytorch_w8
pytorch_pinned_non_blocking_copies pytorch_op_shapes_model h2d_pinned_bandwidth dropped_records_longest_run
record_gpu_samples"
for sc in $scenarios; do
    names="$names record_$sc cupti_active_$sc kernels_$sc h2d_bytes_$sc d2h_bytes_$sc gpu_times_$sc stream_order_$sc"
    [ "$sc" = balanced ] || names="$names verdict_$sc"
done
for r in w0 w8; do
    names="$names pytorch_${r}_steps_verdict pytorch_${r}_dataloader pytorch_${r}_h2d_copies pytorch_${r}_kernels_in_ops
           pytorch_${r}_memory_rows pytorch_${r}_torch_memory_marks pytorch_${r}_memory_report"
done
for n in $names; do
    c=$(grep -c "^\(PASS\|FAIL\) $n " "$out")
    [ "$c" = 1 ] || fail "check $n printed $c times, want once: $(grep " $n " "$out" | head -2)"
done
want=$(echo $names | wc -w)
got=$(grep -c '^\(PASS\|FAIL\) ' "$out")
[ "$got" = "$want" ] || fail "$got checks printed, $want expected: extra $(grep '^\(PASS\|FAIL\) ' "$out" | awk '{print $2}' | grep -vxF "$(echo $names | tr ' ' '\n')" | tr '\n' ' ')"
bad=$(grep -v '^\(PASS\|FAIL\|INFO\) \|^[0-9]* passed, [0-9]* failed$' "$out" | head -3)
[ -z "$bad" ] || fail "lines that are no check, INFO or summary: $bad"
grep -qiE 'unbound variable|syntax error|command not found|Traceback|integer expression expected|bad substitution' \
    "$out" "$work/stderr" && fail "the script itself failed: $(grep -hiE 'unbound|syntax|not found|Traceback|expected|substitution' "$out" "$work/stderr" | head -3)"
grep -q '^FAIL checker_' "$out" && fail "a trace check did not run: $(grep '^FAIL checker_' "$out")"

# no device needed: these pass (cuda_kernels exists only where nvcc built it)
must_pass="driver_version ldd_perfscope ldd_libperfscope_probe.so ldd_train top_nvml_matches_nvidia_smi
record_fixed_cost record_gpu_samples"
for sc in $scenarios; do must_pass="$must_pass record_$sc"; done
[ -e "$carried/tests/cupti/cuda_kernels" ] && must_pass="$must_pass ldd_cuda_kernels"
for n in $must_pass; do
    grep -q "^PASS $n " "$out" || fail "$n should pass without a GPU: $(grep " $n " "$out")"
done
# a device needed: these fail, and say why
for n in train_backend cupti_active_kernel-bound kernels_kernel-bound stream_order_kernel-bound torch_cuda \
         pytorch_w8_h2d_copies h2d_pinned_bandwidth nvml_samples_join_gpu_kernel-bound; do
    line=$(grep "^FAIL $n " "$out") || fail "$n should fail without a GPU: $(grep " $n " "$out")"
    [ "$(echo "$line" | wc -w)" -ge 4 ] || fail "$n fails without a reason: $line"
done
grep -q "^PASS top_nvml_matches_nvidia_smi NVIDIA H200 GPU-5a000000-0000-0000-0000-000000000077 00000000:19:00.0" "$out" ||
    fail "NVML against nvidia-smi: $(grep top_nvml "$out")"

# the overhead runs last OVH_RUN_S (1 s) of steps: train's phase_ms step= is the total of its 20 warm-up steps, so
# one step is that / 20, and 1000 ms / one step is the run's length in steps (train.c prints both)
python3 - "$work/work/warmup.out" "$out" <<'EOF' || fail "the overhead runs' length in steps"
import re, sys
warm, log = open(sys.argv[1]).read(), open(sys.argv[2]).read()
total = float(re.search(r"^phase_ms step=([0-9.]+)", warm, re.M).group(1))
n = int(re.search(r"^steps=(\d+)", warm, re.M).group(1))
per, steps = re.search(r"^INFO balanced: ([0-9.]+) ms per step .* -> (\d+) steps", log, re.M).groups()
want = max(20, int(1000 / (total / n)))
assert n == 20 and abs(float(per) - total / n) < 0.001 and int(steps) == want, (total, n, per, steps, want)
EOF

# the summary line, its counts, the exit status
last=$(tail -1 "$out")
np=$(grep -c '^PASS ' "$out"); nf=$(grep -c '^FAIL ' "$out")
[ "$last" = "$np passed, $nf failed" ] || fail "last line '$last', want '$np passed, $nf failed'"
[ "$rc" = "$(( nf > 100 ? 100 : nf ))" ] || fail "exit status $rc, want $nf"

# what goes back from $OUT: at most 8 files of at most 16 MiB, names a device tool accepts
files=$(find "$work/out" -type f | wc -l)
[ "$files" -ge 4 ] && [ "$files" -le 8 ] || fail "$files files in OUT: $(ls "$work/out")"
find "$work/out" -type f -size +16M | grep -q . && fail "a file over 16 MiB in OUT"
find "$work/out" -mindepth 1 | sed "s|^$work/out/||" | grep -q '[^A-Za-z0-9._/-]' && fail "odd file names in OUT"
for f in run.log checks.json reports.json traces.tar.gz; do [ -s "$work/out/$f" ] || fail "OUT/$f missing"; done
python3 - "$work/out" "$np" "$nf" <<'EOF' || fail "checks.json / reports.json"
import json, sys
out, np, nf = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = json.load(open(out + "/checks.json"))
assert (c["passed"], c["failed"], len(c["checks"])) == (np, nf, np + nf), (c["passed"], c["failed"])
r = json.load(open(out + "/reports.json"))
assert {"data-bound", "memcpy-bound", "kernel-bound", "sync-bound"} <= set(r), sorted(r)
assert all("verdict" in r[k] for k in ("data-bound", "kernel-bound")), "reports without a verdict"
EOF
tar -tzf "$work/out/traces.tar.gz" | grep -q '^kernel-bound.sqlite$' || fail "traces.tar.gz lacks the kernel-bound trace"
cmp -s <(grep -v '^INFO work files' "$work/out/run.log" | tail -1) <(tail -1 "$out") || fail "run.log does not end like stdout"
echo "ok: $np passed, $nf failed (dry run, no GPU)"
