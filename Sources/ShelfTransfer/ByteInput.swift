internal import Foundation

/// Bytes read from a file descriptor in large chunks, with the line and column of the next
/// byte. Memory stays at one buffer whatever the input's size.
///
/// Lines end at LF. Columns count characters, not bytes: UTF-8 continuation bytes do not
/// move the column. Not thread-safe; one reader owns it.
final class ByteInput {
    /// The name errors use: a path, or "stdin".
    let name: String
    private let descriptor: Int32
    private let closesDescriptor: Bool
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var index = 0
    private var count = 0
    private var atEnd = false

    /// Bytes consumed so far.
    private(set) var offset = 0
    /// The line of the next byte, from 1.
    private(set) var line = 1
    private var lineStart = 0
    private var continuations = 0

    /// Reads `descriptor`; closes it on release when `closes` is true.
    init(descriptor: Int32, name: String, closes: Bool, capacity: Int = 1 << 18) {
        self.descriptor = descriptor
        self.name = name
        self.closesDescriptor = closes
        self.capacity = capacity
        buffer = .allocate(capacity: capacity)
    }

    /// Opens the file at `path`.
    /// - Throws: `TransferError` when it cannot be opened or is a folder.
    convenience init(path: String) throws(TransferError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TransferError(
                "cannot open \(path): \(String(cString: strerror(errno))); check the path and its permissions")
        }
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            close(descriptor)
            throw TransferError("\(path) is a folder; name a file to import")
        }
        self.init(descriptor: descriptor, name: path, closes: true)
    }

    deinit {
        buffer.deallocate()
        if closesDescriptor { close(descriptor) }
    }

    /// The size of the input when it is a regular file, for progress; nil for a pipe.
    var size: Int? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// The column of the next byte, from 1, in characters.
    var column: Int { offset - lineStart - continuations + 1 }

    /// Where the next byte is.
    var position: SourcePosition { SourcePosition(line: line, column: column) }

    /// The next byte without consuming it, or nil at the end.
    @inline(__always)
    func peek() throws(TransferError) -> UInt8? {
        if index == count {
            guard try refill() else { return nil }
        }
        return buffer[index]
    }

    /// Consumes and returns the next byte, or nil at the end.
    @inline(__always)
    func next() throws(TransferError) -> UInt8? {
        if index == count {
            guard try refill() else { return nil }
        }
        let byte = buffer[index]
        index += 1
        offset += 1
        if byte == 0x0A {
            line += 1
            lineStart = offset
            continuations = 0
        } else if byte & 0xC0 == 0x80 {
            continuations += 1
        }
        return byte
    }

    /// The first `length` bytes still to read (fewer at the end), without consuming them.
    func peekPrefix(_ length: Int) throws(TransferError) -> [UInt8] {
        while count - index < length, !atEnd {
            if index > 0 {
                buffer.update(from: buffer + index, count: count - index)
                count -= index
                index = 0
            }
            let read = try readMore(into: buffer + count, capacity: capacity - count)
            if read == 0 { atEnd = true }
            count += read
        }
        return Array(UnsafeBufferPointer(start: buffer + index, count: min(length, count - index)))
    }

    /// Skips a UTF-8 byte order mark at the current position.
    func skipByteOrderMark() throws(TransferError) {
        if try peekPrefix(3) == [0xEF, 0xBB, 0xBF] {
            for _ in 0..<3 { _ = try next() }
        }
    }

    private func refill() throws(TransferError) -> Bool {
        guard !atEnd else { return false }
        index = 0
        count = try readMore(into: buffer, capacity: capacity)
        if count == 0 { atEnd = true }
        return count > 0
    }

    private func readMore(into start: UnsafeMutablePointer<UInt8>, capacity: Int) throws(TransferError) -> Int {
        while true {
            let read = Foundation.read(descriptor, start, capacity)
            if read >= 0 { return read }
            if errno == EINTR { continue }
            throw TransferError("cannot read \(name): \(String(cString: strerror(errno)))")
        }
    }
}

/// A line and a column in an input file, both from 1.
public struct SourcePosition: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}
