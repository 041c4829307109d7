; cub's warp sum of doubles: each step is assembly that shuffles the two
; 32-bit halves of the double down and adds where the source lane was in
; range, keeping the sum in the output. It is read as a call of
; kinase.shfl.sync.down.f64 (a down shuffle of the double as two i32 ones,
; a row of rules/warp.def) plus the add, selected by PTX's rule, so reverse
; mode sends the adjoint's halves back along up shuffles. It was refused as
; unknown assembly.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@enzyme_dup = external global i32

declare double @__enzyme_autodiff(ptr, ...)

define internal double @warp_sum(ptr %x) {
  %lane = call i32 asm sideeffect "mov.u32 $0, %laneid;", "=r"()
  %p = getelementptr inbounds double, ptr %x, i32 %lane
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %s1 = call double asm sideeffect "{  .reg .u32 lo;  .reg .u32 hi;  .reg .pred p;  .reg .f64 r0;  mov.b64 $0, $1;  mov.b64 {lo, hi}, $1;  shfl.sync.down.b32 lo|p, lo, $2, $3, $4;  shfl.sync.down.b32 hi|p, hi, $2, $3, $4;  mov.b64 r0, {lo, hi};  @p add.f64 $0, $0, r0;}", "=d,d,r,r,r"(double %sq, i32 1, i32 31, i32 -1)
  %s2 = call double asm sideeffect "{  .reg .u32 lo;  .reg .u32 hi;  .reg .pred p;  .reg .f64 r0;  mov.b64 $0, $1;  mov.b64 {lo, hi}, $1;  shfl.sync.down.b32 lo|p, lo, $2, $3, $4;  shfl.sync.down.b32 hi|p, hi, $2, $3, $4;  mov.b64 r0, {lo, hi};  @p add.f64 $0, $0, r0;}", "=d,d,r,r,r"(double %s1, i32 2, i32 31, i32 -1)
  ret double %s2
}

define void @requests(ptr %x, ptr %dx) {
  %dup = load i32, ptr @enzyme_dup
  %g = call double (ptr, ...) @__enzyme_autodiff(ptr @warp_sum, i32 %dup, ptr %x, ptr %dx)
  ret void
}

; CHECK-LABEL: define internal {{.*}} @__kinase_rev_warp_sum(
; CHECK-NOT: asm sideeffect "{  .reg
; CHECK: call { i32, i1 } @llvm.nvvm.shfl.sync.up.i32p(i32 -1, i32 %{{.*}}, i32 2, i32 0)
; CHECK: call { i32, i1 } @llvm.nvvm.shfl.sync.up.i32p(i32 -1, i32 %{{.*}}, i32 2, i32 0)
; CHECK: call { i32, i1 } @llvm.nvvm.shfl.sync.up.i32p(i32 -1, i32 %{{.*}}, i32 1, i32 0)
; CHECK: atomicrmw fadd ptr %{{.*}}, double
; CHECK: define internal double @kinase.shfl.sync.down.f64({{.*}}) #[[CONVERGENT:[0-9]+]]
; CHECK-COUNT-2: call { i32, i1 } @llvm.nvvm.shfl.sync.down.i32p(
; CHECK: attributes #[[CONVERGENT]] = { convergent }
