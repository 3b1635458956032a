/// libFuzzer target for `CSVReader`: reads the header and every record of the input, with a
/// read buffer of 1 to 64 bytes (chosen by the first byte) so that records straddle refills.
/// Errors are expected; crashes, hangs and growing memory are bugs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let input = FuzzInput.make(data + 1, size - 1, capacity: Int(data[0] & 63) + 1)
    do {
        var reader = try CSVReader(input: input)
        var record = SourceRecord()
        while try reader.next(into: &record) {
            if let problem = reader.fieldCountProblem(record) { checkError(problem) }
            for case let value? in record.values { checkText(record, value) }
        }
    } catch {
        checkError(error)
    }
    return 0
}
