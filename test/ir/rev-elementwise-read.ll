; Enzyme's enzyme_elementwise_read (an annotation, as kinase-cc and kinase.h
; write __attribute__((enzyme_elementwise_read))) in device code: the user
; says each thread reads only elements no other thread reads, so the
; adjoints of its loads are added to the shadow without atomics. Without the
; attribute they are atomic adds (another thread may read the same element).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.elementwise = private unnamed_addr constant [24 x i8] c"enzyme_elementwise_read\00", section "llvm.metadata"
@.file = private unnamed_addr constant [8 x i8] c"test.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @own_square, ptr @.elementwise, ptr @.file, i32 1, ptr null }
], section "llvm.metadata"

declare float @__enzyme_autodiff(ptr, ...)

define internal float @own_square(ptr %x) {
  %v = load float, ptr %x, align 4
  %s = fmul float %v, %v
  ret float %s
}

define internal float @square(ptr %x) {
  %v = load float, ptr %x, align 4
  %s = fmul float %v, %v
  ret float %s
}

define void @gradients(ptr %x, ptr %dx) {
  %a = call float (ptr, ...) @__enzyme_autodiff(ptr @own_square, ptr %x, ptr %dx)
  %b = call float (ptr, ...) @__enzyme_autodiff(ptr @square, ptr %x, ptr %dx)
  ret void
}

; CHECK-LABEL: define internal void @__kinase_rev_own_square(ptr %x, ptr %d.x, float %0, ptr %tape)
; CHECK-NOT:     atomicrmw
; CHECK:         [[OLD:%.*]] = load float, ptr %d.x, align 4
; CHECK:         [[NEW:%.*]] = fadd float [[OLD]], {{%.*}}
; CHECK:         store float [[NEW]], ptr %d.x, align 4
; CHECK-NOT:     atomicrmw
; CHECK:         ret void

; CHECK-LABEL: define internal void @__kinase_rev_square(ptr %x, ptr %d.x, float %0, ptr %tape)
; CHECK:         atomicrmw fadd ptr %d.x, float {{%.*}} monotonic, align 4
; CHECK:         ret void
