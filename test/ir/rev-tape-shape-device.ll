; Reverse mode in device code, the tape's shape: the loop's records start
; inside the tape, which the request's caller holds in its stack slot (the
; thread's local memory): 1024 bytes of them, here 128 doubles. The vector
; starts with that room, so the loop's first 128 iterations never grow it
; (no device malloc, no arena) and releasing it leaves local memory alone.
; On the CPU the same function's vector starts empty (rev-tape-shape.ll).
; RUN: %opt -passes=kinase -S %s | FileCheck %s
; RUN: %opt -passes=kinase,verify -disable-output %s

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.sin.f64(double)

define internal double @f(double %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ %x, %entry ], [ %t, %loop ]
  %s = call double @llvm.sin.f64(double %acc)
  %t = fmul double %s, %x
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %t
}

define void @test(double %x, ptr %dx, i64 %n) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i64 %n)
  store double %d, ptr %dx
  ret void
}

; CHECK-LABEL: define void @test(
; CHECK:         [[SLOT:%.*]] = alloca { { ptr, i64, i64, i64 }, [128 x { double }] }
; CHECK:         call {{.*}} @__kinase_aug_f(double %x, i64 %n, ptr [[SLOT]])
; CHECK-LABEL: define internal {{.*}} @__kinase_aug_f(
; CHECK-SAME:    ptr [[TAPE:%[0-9]+]])
; CHECK:       entry:
; The records are not zeroed, only what comes before them (32 bytes):
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr {{.*}}[[TAPE]], i8 0, i64 32, i1 false)
; CHECK-NEXT:    %inline_records = getelementptr inbounds nuw i8, ptr [[TAPE]], i64 32
; CHECK-NEXT:    store ptr %inline_records, ptr [[TAPE]]
; CHECK-NEXT:    [[CAP:%[0-9]+]] = getelementptr inbounds nuw i8, ptr [[TAPE]], i64 16
; CHECK-NEXT:    store i64 128, ptr [[CAP]]
; CHECK-NEXT:    [[STRIDE:%[0-9]+]] = getelementptr inbounds nuw i8, ptr [[TAPE]], i64 24
; CHECK-NEXT:    store i64 8, ptr [[STRIDE]]
; CHECK:       loop:
; CHECK:         call ptr @kinase.tape.push(
; CHECK-LABEL: define internal void @kinase.tape.release(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[LOCAL:%[0-9]+]] = call i1 @llvm.nvvm.isspacep.local(
; CHECK-NEXT:    br i1 [[LOCAL]], label %done, label %not_local
