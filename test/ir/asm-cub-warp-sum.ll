; cub's warp sum of floats as its headers write it: LaneId() is inline
; assembly reading %laneid (an integer, no derivative), and each step is
; assembly, a predicated shfl.sync.down and an add where the source lane was
; in range. The step is read as the NVVM down shuffle plus the add, selected
; by PTX's rule (lane + offset <= the segment's last lane), so reverse mode
; sends the adjoint back along an up shuffle and forward mode shuffles the
; tangent the same way.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@enzyme_dup = external global i32

declare float @__enzyme_autodiff(ptr, ...)
declare float @__enzyme_fwddiff(ptr, ...)

define internal float @warp_sum(ptr %x) {
  %lane = call i32 asm sideeffect "mov.u32 $0, %laneid;", "=r"()
  %p = getelementptr inbounds float, ptr %x, i32 %lane
  %v = load float, ptr %p
  %sq = fmul float %v, %v
  %s1 = call float asm sideeffect "{  .reg .f32 r0;  .reg .pred p;  shfl.sync.down.b32 r0|p, $1, $2, $3, $5;  @p add.f32 r0, r0, $4;  mov.f32 $0, r0;}", "=f,f,r,r,f,r"(float %sq, i32 1, i32 31, float %sq, i32 -1)
  %s2 = call float asm sideeffect "{  .reg .f32 r0;  .reg .pred p;  shfl.sync.down.b32 r0|p, $1, $2, $3, $5;  @p add.f32 r0, r0, $4;  mov.f32 $0, r0;}", "=f,f,r,r,f,r"(float %s1, i32 2, i32 31, float %s1, i32 -1)
  ret float %s2
}

define void @requests(ptr %x, ptr %dx, ptr %out) {
  %dup = load i32, ptr @enzyme_dup
  %g = call float (ptr, ...) @__enzyme_autodiff(ptr @warp_sum, i32 %dup, ptr %x, ptr %dx)
  %t = call float (ptr, ...) @__enzyme_fwddiff(ptr @warp_sum, i32 %dup, ptr %x, ptr %dx)
  store float %t, ptr %out
  ret void
}

; CHECK-LABEL: define internal {{.*}} @__kinase_rev_warp_sum(
; CHECK-NOT: asm sideeffect "{  .reg
; CHECK: call { float, i1 } @llvm.nvvm.shfl.sync.up.f32p(i32 -1, float %{{.*}}, i32 2, i32 0)
; CHECK: call { float, i1 } @llvm.nvvm.shfl.sync.up.f32p(i32 -1, float %{{.*}}, i32 1, i32 0)
; CHECK: atomicrmw fadd
; CHECK-LABEL: define internal float @__kinase_fwd_warp_sum(
; CHECK: asm sideeffect "mov.u32 $0, %laneid;"
; CHECK: call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %sq, i32 1, i32 31)
; CHECK: %[[T1:.*]] = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %{{.*}}, i32 1, i32 31)
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.laneid()
; CHECK: fadd float %[[T1]],
; CHECK: call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %{{.*}}, i32 2, i32 31)
; CHECK: %[[T2:.*]] = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %{{.*}}, i32 2, i32 31)
; CHECK: fadd float %[[T2]],
; CHECK: ret float
