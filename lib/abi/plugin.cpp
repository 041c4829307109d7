// The one C++ file of Kinase: it registers the pass and its command-line
// options with LLVM, and forwards diagnostics and optimization remarks to
// LLVMContext::diagnose, which the C API lacks. Everything else is C11 on llvm-c (see kinase.h).
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LLVMRemarkStreamer.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm-c/Core.h"

extern "C" int kn_run_on_module(LLVMModuleRef module);

// -mllvm options reach these only when the plugin is loaded before clang
// parses them (-fplugin=Kinase.so, as kinase-cc does); KINASE_PRINT,
// KINASE_LIST and KINASE_REMARKS in the environment work everywhere.
static llvm::cl::opt<bool> PrintOption("kinase-print",
                                       llvm::cl::desc("Print every derivative Kinase generates"));
static llvm::cl::opt<bool> ListOption("kinase-list",
                                      llvm::cl::desc("List every function Kinase differentiates"));
static llvm::cl::opt<bool> RemarksOption(
    "kinase-remarks", llvm::cl::desc("Say which values Kinase records and which adds are atomic, "
                                     "and why (as -Rpass=kinase -Rpass-missed=kinase)"));

extern "C" int kn_option_print(void) { return PrintOption; }
extern "C" int kn_option_list(void) { return ListOption; }
extern "C" int kn_option_remarks(void) { return RemarksOption; }

// Remarks of the pass "kinase": clang's -Rpass=kinase and -Rpass-missed=kinase
// (opt's -pass-remarks=kinase) choose them through the context's handler.
static const char *const RemarkPass = "kinase";

extern "C" int kn_remark_enabled(LLVMContextRef context, int missed) {
  const llvm::DiagnosticHandler *handler = llvm::unwrap(context)->getDiagHandlerPtr();
  return missed ? handler->isMissedOptRemarkEnabled(RemarkPass)
                : handler->isPassedOptRemarkEnabled(RemarkPass);
}

// -fsave-optimization-record (opt's -pass-remarks-output) writes every
// remark diagnosed, shown or not.
extern "C" int kn_remark_recorded(LLVMContextRef context) {
  return llvm::unwrap(context)->getLLVMRemarkStreamer() != nullptr;
}

extern "C" void kn_report_remark(LLVMContextRef context, LLVMValueRef function,
                                 LLVMMetadataRef location, int missed, const char *name,
                                 const char *message) {
  auto &fn = *llvm::cast<llvm::Function>(llvm::unwrap(function));
  auto *loc = llvm::cast_or_null<llvm::DILocation>(llvm::unwrap(location));
  llvm::DiagnosticLocation where = loc                    ? llvm::DiagnosticLocation(loc)
                                   : fn.getSubprogram() ? llvm::DiagnosticLocation(fn.getSubprogram())
                                                        : llvm::DiagnosticLocation();
  const llvm::BasicBlock *region = fn.empty() ? nullptr : &fn.getEntryBlock();
  if (missed)
    llvm::unwrap(context)->diagnose(llvm::OptimizationRemarkMissed(RemarkPass, name, where, region)
                                    << message);
  else
    llvm::unwrap(context)->diagnose(llvm::OptimizationRemark(RemarkPass, name, where, region)
                                    << message);
}

extern "C" void kn_report_error(LLVMContextRef context, LLVMValueRef function,
                                LLVMMetadataRef location, const char *message) {
  auto *fn = llvm::cast_or_null<llvm::Function>(llvm::unwrap(function));
  auto *loc = llvm::cast_or_null<llvm::DILocation>(llvm::unwrap(location));
  if (!fn || (!loc && !fn->getSubprogram())) {
    llvm::unwrap(context)->diagnose(llvm::DiagnosticInfoGeneric(message, llvm::DS_Error));
    return;
  }
  llvm::DiagnosticLocation where = loc ? llvm::DiagnosticLocation(loc)
                                       : llvm::DiagnosticLocation(fn->getSubprogram());
  // clang reports "unsupported" diagnostics at their source location.
  fn->getContext().diagnose(llvm::DiagnosticInfoUnsupported(*fn, message, where, llvm::DS_Error));
}

namespace {
struct KinasePass : llvm::PassInfoMixin<KinasePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return kn_run_on_module(llvm::wrap(&M)) ? llvm::PreservedAnalyses::none()
                                             : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};
} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ATTRIBUTE_VISIBILITY_DEFAULT llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Kinase", KINASE_VERSION, [](llvm::PassBuilder &PB) {
            PB.registerPipelineStartEPCallback(
                [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
                  MPM.addPass(KinasePass());
                });
            PB.registerPipelineParsingCallback(
                [](llvm::StringRef name, llvm::ModulePassManager &MPM,
                   llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
                  if (name != "kinase")
                    return false;
                  MPM.addPass(KinasePass());
                  return true;
                });
          }};
}
