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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarness.archiveReader(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

var arguments = CommandLine.argc
var argumentValues = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argumentValues, fuzzTest))
