; A double shuffled as its two 32-bit halves, each half alike (cooperative
; groups' shuffle of a struct, cub's ShuffleUp of a double word by word,
; or by hand with __double2loint, __double2hiint and __hiloint2double, the
; NVVM intrinsics d2i.lo, d2i.hi and lohi.i2d): the pair is read as the
; double's own shuffle (kinase.shfl.sync.MODE.f64), whose transpose sends
; the adjoint's halves back. Before, the halves were integers: the adjoint
; stayed with the lane that read, or (through the intrinsics) was zero.
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@enzyme_dup = external global i32

declare double @__enzyme_autodiff(ptr, ...)
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.d2i.lo(double)
declare i32 @llvm.nvvm.d2i.hi(double)
declare double @llvm.nvvm.lohi.i2d(i32, i32)

; x^2 plus the neighbour's (lane ^ 1), its halves moved as integers.
define internal double @pair_sum(ptr %x) {
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %p = getelementptr inbounds double, ptr %x, i32 %lane
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %bits = bitcast double %sq to i64
  %lo = trunc i64 %bits to i32
  %shifted = lshr i64 %bits, 32
  %hi = trunc i64 %shifted to i32
  %lo.moved = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %lo, i32 1, i32 31)
  %hi.moved = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %hi, i32 1, i32 31)
  %lo.wide = zext i32 %lo.moved to i64
  %hi.wide = zext i32 %hi.moved to i64
  %hi.placed = shl i64 %hi.wide, 32
  %moved.bits = or i64 %hi.placed, %lo.wide
  %moved = bitcast i64 %moved.bits to double
  %sum = fadd double %sq, %moved
  ret double %sum
}

; x^2 plus the lower lane's (an up shuffle by 1) through the intrinsics.
define internal double @by_hand(ptr %x) {
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %p = getelementptr inbounds double, ptr %x, i32 %lane
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %lo = call i32 @llvm.nvvm.d2i.lo(double %sq)
  %hi = call i32 @llvm.nvvm.d2i.hi(double %sq)
  %lo.moved = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %lo, i32 1, i32 0)
  %hi.moved = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %hi, i32 1, i32 0)
  %moved = call double @llvm.nvvm.lohi.i2d(i32 %lo.moved, i32 %hi.moved)
  %sum = fadd double %sq, %moved
  ret double %sum
}

; The halves of a long long's bits (__double_as_longlong), the high one by
; a signed shift, put back with a sign extension.
define internal double @signed_bits(ptr %x) {
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %p = getelementptr inbounds double, ptr %x, i32 %lane
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %bits = bitcast double %sq to i64
  %lo = trunc i64 %bits to i32
  %shifted = ashr i64 %bits, 32
  %hi = trunc i64 %shifted to i32
  %lo.moved = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %lo, i32 2, i32 31)
  %hi.moved = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %hi, i32 2, i32 31)
  %lo.wide = zext i32 %lo.moved to i64
  %hi.wide = sext i32 %hi.moved to i64
  %hi.placed = shl i64 %hi.wide, 32
  %moved.bits = or i64 %hi.placed, %lo.wide
  %moved = bitcast i64 %moved.bits to double
  %sum = fadd double %sq, %moved
  ret double %sum
}

define void @requests(ptr %x, ptr %dx) {
  %dup = load i32, ptr @enzyme_dup
  %g1 = call double (ptr, ...) @__enzyme_autodiff(ptr @pair_sum, i32 %dup, ptr %x, ptr %dx)
  %g2 = call double (ptr, ...) @__enzyme_autodiff(ptr @by_hand, i32 %dup, ptr %x, ptr %dx)
  %g3 = call double (ptr, ...) @__enzyme_autodiff(ptr @signed_bits, i32 %dup, ptr %x, ptr %dx)
  ret void
}

; The transpose of the butterfly is the butterfly: the adjoint's two halves
; go back, the validity bit from the first.
; CHECK-LABEL: define internal void @__kinase_rev_pair_sum(
; CHECK-COUNT-2: call { i32, i1 } @llvm.nvvm.shfl.sync.bfly.i32p(i32 -1, i32 %{{.*}}, i32 1, i32 31)
; CHECK-COUNT-2: call { i32, i1 } @llvm.nvvm.shfl.sync.bfly.i32p(i32 -1, i32 %{{.*}}, i32 1, i32 31)
; CHECK: atomicrmw fadd ptr %{{.*}}, double
; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_pair_sum(
; CHECK: call double @kinase.shfl.sync.bfly.f64(i32 -1, double %sq, i32 1, i32 31)
; CHECK-NOT: shfl.sync.bfly.i32(

; An up shuffle's transpose is a down shuffle of the adjoints whose read
; was valid; no intrinsic of the halves is left.
; CHECK-LABEL: define internal void @__kinase_rev_by_hand(
; CHECK-COUNT-2: call { i32, i1 } @llvm.nvvm.shfl.sync.up.i32p(i32 -1, i32 %{{.*}}, i32 1, i32 0)
; CHECK-COUNT-2: call { i32, i1 } @llvm.nvvm.shfl.sync.down.i32p(i32 -1, i32 %{{.*}}, i32 1, i32 31)
; CHECK: atomicrmw fadd ptr %{{.*}}, double
; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_by_hand(
; CHECK-NOT: @llvm.nvvm.d2i
; CHECK: call double @kinase.shfl.sync.up.f64(i32 -1, double %sq, i32 1, i32 0)
; CHECK-NOT: @llvm.nvvm.lohi.i2d
; CHECK: ret { double, ptr }

; CHECK-LABEL: define internal { double, ptr } @__kinase_aug_signed_bits(
; CHECK: call double @kinase.shfl.sync.bfly.f64(i32 -1, double %sq, i32 2, i32 31)
; CHECK-NOT: shfl.sync.bfly.i32(
; CHECK: ret { double, ptr }
