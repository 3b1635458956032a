internal import Foundation

/// Buffered output to a file descriptor. A file is written beside its final path and
/// renamed into place by `commit()`, so a failed export leaves the old file as it was.
final class ByteOutput {
    /// The name errors use: a path, or "stdout".
    let name: String
    private let descriptor: Int32
    private let finalPath: String?
    private let temporaryPath: String?
    private var committed = false
    /// Bytes waiting to be written; append to it, then call `flushIfFull()`.
    var bytes: [UInt8] = []
    private static let chunk = 1 << 16

    /// Writes to an open descriptor (stdout); does not close it.
    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        finalPath = nil
        temporaryPath = nil
        bytes.reserveCapacity(Self.chunk * 2)
    }

    /// Writes to a new file beside `path`, renamed to `path` by `commit()`.
    init(path: String) throws(TransferError) {
        let folder = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        var template = Array(((folder.isEmpty ? "." : folder) + "/.\(base).partial-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw TransferError(
                "cannot create \(path): \(String(cString: strerror(errno))); check that its folder exists and is writable"
            )
        }
        self.descriptor = descriptor
        name = path
        finalPath = path
        temporaryPath = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        bytes.reserveCapacity(Self.chunk * 2)
    }

    deinit {
        if let temporaryPath {
            close(descriptor)
            if !committed { unlink(temporaryPath) }
        }
    }

    @inline(__always)
    func flushIfFull() throws(TransferError) {
        if bytes.count >= Self.chunk { try flush() }
    }

    /// Writes everything buffered.
    func flush() throws(TransferError) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                throw TransferError("cannot write \(name): \(String(cString: strerror(errno)))")
            }
            written += result
        }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Flushes, and for a file makes it durable and moves it into place (0644 less umask).
    func commit() throws(TransferError) {
        try flush()
        guard let finalPath, let temporaryPath else { return }
        let mask = umask(0)
        umask(mask)
        fchmod(descriptor, 0o666 & ~mask)
        guard fsync(descriptor) == 0, rename(temporaryPath, finalPath) == 0 else {
            throw TransferError("cannot write \(finalPath): \(String(cString: strerror(errno)))")
        }
        committed = true
    }
}

/// Encodings shared by the writers.
enum Encode {
    /// A CSV field: nothing for nil (no value), `""` for empty text, quoted when it holds a
    /// comma, a quote, a line break, or starts or ends with white space.
    @inline(__always)
    static func csv(_ text: String?, into bytes: inout [UInt8]) {
        guard var text else { return }
        text.withUTF8 { utf8 in
            var needsQuotes = utf8.isEmpty
            if let first = utf8.first, let last = utf8.last {
                needsQuotes = first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
            }
            if !needsQuotes {
                for byte in utf8 where byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D {
                    needsQuotes = true
                    break
                }
            }
            guard needsQuotes else {
                bytes.append(contentsOf: utf8)
                return
            }
            bytes.append(0x22)
            for byte in utf8 {
                if byte == 0x22 { bytes.append(0x22) }
                bytes.append(byte)
            }
            bytes.append(0x22)
        }
    }

    /// A JSON string in quotes, or `null`. Only `"`, `\` and control characters are escaped;
    /// everything else is written as UTF-8.
    @inline(__always)
    static func json(_ text: String?, into bytes: inout [UInt8]) {
        guard var text else {
            bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            return
        }
        bytes.append(0x22)
        text.withUTF8 { utf8 in
            for byte in utf8 {
                switch byte {
                case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
                case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
                case let control where control < 0x20 || control == 0x7F:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(control >> 4)], hex[Int(control & 0xF)]])
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(0x22)
    }

    /// A whole number in decimal.
    @inline(__always)
    static func integer(_ value: Int64, into bytes: inout [UInt8]) {
        guard value >= 0 else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        // Digits from the last, then reversed in place: no String per number.
        let start = bytes.count
        var rest = value
        repeat {
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    /// Appends an ASCII literal.
    @inline(__always)
    static func ascii(_ literal: StaticString, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
