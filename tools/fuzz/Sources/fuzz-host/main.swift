import BridgeFuzz
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// libFuzzer's driver (compiler-rt). SwiftPM links this executable's own `main` (the top
/// level code below), so that code hands the process over to libFuzzer.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@_silgen_name("LLVMFuzzerMutate")
func LLVMFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int) -> Int

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarness.hostRouting(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// One mutation in four is libFuzzer's own; the rest the structure-aware case mutator.
@_cdecl("LLVMFuzzerCustomMutator")
public func fuzzMutate(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    seed & 3 == 0 ? LLVMFuzzerMutate(data, size, maxSize) : FuzzHarness.mutateCase(data, size, maxSize, seed)
}

var arguments = CommandLine.argc
var argumentValues = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argumentValues, fuzzTest))
