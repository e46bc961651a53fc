#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// libFuzzer's driver (compiler-rt, `LLVMFuzzerRunDriver`).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@_silgen_name("LLVMFuzzerMutate")
func LLVMFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int) -> Int

/// Hands the process to libFuzzer with `test` as the target. SwiftPM links each shim's
/// own `main` (its top-level code), so libFuzzer's `main` is never used: the shim's top
/// level calls this instead.
public func runLibFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}

/// libFuzzer's own byte-level mutation (`LLVMFuzzerMutate`), for custom mutators that
/// mix it with the structure-aware ones.
public func libFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int) -> Int {
    LLVMFuzzerMutate(data, size, maxSize)
}
