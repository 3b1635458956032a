internal import Foundation

/// The fuzzer's bytes as a `ByteInput` reading a real file descriptor, as an import does.
///
/// One file in /dev/shm (or the temporary folder) is rewritten for every input: creating a
/// file per run would cost more than the reading under test. libFuzzer calls the target on
/// one thread, so the descriptor is never shared.
enum FuzzInput {
    nonisolated(unsafe) private static var descriptor: Int32 = -1

    static func make(_ data: UnsafePointer<UInt8>, _ size: Int, capacity: Int) -> ByteInput {
        if descriptor < 0 {
            let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
            let path = "\(folder)/shelf-fuzz-\(getpid())"
            descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { fatalError("cannot create \(path): \(String(cString: strerror(errno)))") }
            unlink(path)
        }
        guard ftruncate(descriptor, 0) == 0, pwrite(descriptor, data, size, 0) == size,
            lseek(descriptor, 0, SEEK_SET) == 0
        else { fatalError("cannot write the fuzz input: \(String(cString: strerror(errno)))") }
        return ByteInput(descriptor: descriptor, name: "fuzz", closes: false, capacity: capacity)
    }
}

/// Checks what every reader promises of a text value it yields: a string can be made of it.
func checkText(_ record: SourceRecord, _ value: SourceValue) {
    precondition(value.start <= value.end && value.end <= record.storage.count, "a value outside its record")
    if value.kind == .text || value.kind == .number || value.kind == .bool {
        // Any value may be refused with a reason, but never crash.
        _ = try? record.string(value)
    }
    _ =
        TransferError(file: "fuzz", position: value.position, field: "f", value: record.display(value), reason: "r")
        .description
}

/// Checks what every error promises: a place from 1:1 on, and a short message a terminal
/// cannot act on (no control, format or separator characters).
func checkError(_ error: TransferError) {
    if let position = error.position {
        precondition(position.line >= 1 && position.column >= 1, "an error at \(position)")
    }
    let description = error.description
    precondition(
        description.unicodeScalars.count <= 1_500, "a message of \(description.unicodeScalars.count) characters")
    for scalar in description.unicodeScalars {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator:
            preconditionFailure(
                "a message holding U+\(String(scalar.value, radix: 16)): \(description.debugDescription)")
        default: break
        }
    }
}
