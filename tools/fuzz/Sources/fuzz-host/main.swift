import BridgeFuzz

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
