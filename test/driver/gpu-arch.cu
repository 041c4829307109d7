// Several GPUs (--cuda-gpu-arch given twice, --offload-arch): the driver adds
// its default GPU (sm_90) only when the user names none. Each GPU named gets
// its PTX (--cuda-device-only -S: one file per GPU) and its code in the fat
// binary of a linked program (ptxas's options, kept there, name each; built
// with -g0: with the line tables kinase-cc adds by default, llvm-strings no
// longer finds the options in the fat binary).
//
// REQUIRES: cuda
// RUN: rm -rf %t.two %t.one && mkdir %t.two %t.one
// RUN: cd %t.two && %kinase-cc --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_90 --cuda-device-only -S %s
// RUN: FileCheck %s --check-prefix=SM80 --input-file=%t.two/gpu-arch-cuda-nvptx64-nvidia-cuda-sm_80.s
// RUN: FileCheck %s --check-prefix=SM90 --input-file=%t.two/gpu-arch-cuda-nvptx64-nvidia-cuda-sm_90.s
// RUN: cd %t.one && %kinase-cc --cuda-gpu-arch=sm_80 --cuda-device-only -S %s
// RUN: ls %t.one | FileCheck %s --check-prefix=ONE --implicit-check-not=sm_90
// RUN: %kinase-cc -g0 --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_90 %s -o %t.exe
// RUN: llvm-objcopy --dump-section=.nv_fatbin=%t.fatbin %t.exe %t.copy
// RUN: llvm-strings %t.fatbin | FileCheck %s --check-prefix=FATBIN
// RUN: %kinase-cc -g0 --offload-arch=sm_80 --offload-arch=sm_90 -c %s -o %t.o
// RUN: llvm-objcopy --dump-section=.nv_fatbin=%t.o.fatbin %t.o %t.o.copy
// RUN: llvm-strings %t.o.fatbin | FileCheck %s --check-prefix=FATBIN
// SM80: .target sm_80
// SM90: .target sm_90
// ONE: gpu-arch-cuda-nvptx64-nvidia-cuda-sm_80.s
// FATBIN-DAG: -arch sm_80
// FATBIN-DAG: -arch sm_90
__global__ void scale(double *x) { x[threadIdx.x] *= 2; }

int main() { return 0; }
