import BridgeFuzz
import LibFuzzerDriver

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarness.hostRouting(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// One mutation in four is libFuzzer's own; the rest the structure-aware case mutator.
@_cdecl("LLVMFuzzerCustomMutator")
public func fuzzMutate(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    seed & 3 == 0 ? libFuzzerMutate(data, size, maxSize) : FuzzHarness.mutateCase(data, size, maxSize, seed)
}

runLibFuzzer(fuzzTest)
