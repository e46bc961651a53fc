import BridgeFuzz
import LibFuzzerDriver

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarness.messageAssembler(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

runLibFuzzer(fuzzTest)
