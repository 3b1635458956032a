internal import Foundation

/// Bytes read from a file descriptor in large chunks, with the line and column of the next
/// byte. Memory stays at one buffer whatever the input's size.
///
/// Lines end at LF, CRLF or a lone CR (as old Mac spreadsheets write CSV). Columns count
/// characters, not bytes: UTF-8 continuation bytes do not move the column. Not thread-safe; one reader owns it.
///
/// The input must be UTF-8 text: `next()` throws a `TransferError` naming the line, column
/// and byte offset of the first NUL byte or invalid UTF-8 sequence (an overlong form, a
/// surrogate, a sequence cut short), so a reader never yields such bytes, and
/// `checkEncoding()` recognizes UTF-16 and UTF-32 at the start and says how to convert them.
/// `decode(_:)` first converts UTF-16, Latin-1 or Windows-1252 to UTF-8 as it is read (a
/// `TextDecodingSource`), so lines and columns are those of the text.
final class ByteInput {
    /// The name errors use: a path, or "stdin".
    let name: String
    /// Where the bytes come from (a decoding layer once `decode(_:)` adds one).
    private(set) var source: any ByteSource
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var index = 0
    private var count = 0
    private var atEnd = false

    /// Bytes consumed so far.
    private(set) var offset = 0
    /// The line of the next byte, from 1; after a lone CR, one less (see `position`).
    private(set) var line = 1
    private var lineStart = 0
    private var continuations = 0
    /// The column of the last line end consumed, for `lastPosition` right after a line end.
    private var lastLineEndColumn = 1
    /// The last byte was a CR: the next one starts a line unless it is the LF of a CRLF.
    private var afterCarriageReturn = false

    /// UTF-8 validation: continuation bytes still due, the range the next one must be in
    /// (narrower after E0, ED, F0 and F4, to refuse overlong forms and surrogates), and
    /// where the sequence started.
    private var dueContinuations = 0
    private var continuationRange: ClosedRange<UInt8> = 0x80...0xBF
    private var sequenceStart = (position: SourcePosition(line: 1, column: 1), offset: 0, byte: UInt8(0))

    /// Reads `source`, naming it `name` in errors.
    init(source: any ByteSource, name: String, capacity: Int = 1 << 18) {
        self.source = source
        self.name = name
        self.capacity = max(1, capacity)
        buffer = .allocate(capacity: self.capacity)
    }

    /// Reads `descriptor`, decompressing gzip (see `DecompressingSource`); closes it on
    /// release when `closes` is true. Waking `wake` stops a read that waits for input.
    convenience init(
        descriptor: Int32, name: String, closes: Bool, capacity: Int = 1 << 18, wake: InputWake? = nil
    ) {
        let file = DescriptorSource(descriptor: descriptor, name: name, closes: closes, wake: wake)
        self.init(source: DecompressingSource(file, name: name), name: name, capacity: capacity)
    }

    /// Opens the file at `path`. Opening never waits (a FIFO nobody writes to yet): the wait
    /// is in the reads, which `wake` stops.
    /// - Throws: `TransferError` when it cannot be opened or is a folder.
    convenience init(path: String, wake: InputWake? = nil) throws(TransferError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        // Reads block again (after `poll` says they need not).
        if descriptor >= 0 { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) }
        guard descriptor >= 0 else {
            throw TransferError(
                "cannot open \(path): \(String(cString: strerror(errno))); check the path and its permissions")
        }
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            close(descriptor)
            throw TransferError("\(path) is a folder; name a file to import")
        }
        self.init(descriptor: descriptor, name: path, closes: true, wake: wake)
    }

    deinit {
        buffer.deallocate()
    }

    /// The size of the input when it is a regular file, for progress; nil for a pipe.
    var size: Int? { source.size }

    /// Bytes of the underlying file read so far, for progress against `size` (a compressed
    /// or re-encoded input has a different count from `offset`).
    var rawBytesRead: Int { source.consumed }

    /// The column of the next byte, from 1, in characters.
    var column: Int { offset - lineStart - continuations + 1 }

    /// Where the next byte is. After a CR, that is the start of the next line unless the
    /// next byte (when already read, as after `peek()`) is the LF of a CRLF.
    var position: SourcePosition {
        if afterCarriageReturn, index == count || buffer[index] != 0x0A {
            return SourcePosition(line: line + 1, column: 1)
        }
        return SourcePosition(line: line, column: column)
    }

    /// Where the byte `next()` returned last is (a line end counts on the line it ends).
    var lastPosition: SourcePosition {
        offset == lineStart && line > 1
            ? SourcePosition(line: line - 1, column: lastLineEndColumn)
            : SourcePosition(line: line, column: max(1, column - 1))
    }

    /// The next byte without consuming it, or nil at the end.
    @inline(__always)
    func peek() throws(TransferError) -> UInt8? {
        if index == count {
            guard try refill() else { return nil }
        }
        return buffer[index]
    }

    /// Consumes and returns the next byte, or nil at the end.
    /// - Throws: `TransferError` at a NUL byte or a byte that is not valid UTF-8 here.
    @inline(__always)
    func next() throws(TransferError) -> UInt8? {
        if index == count {
            guard try refill() else { return nil }
        }
        let byte = buffer[index]
        index += 1
        offset += 1
        // Most bytes are printable ASCII outside a multi-byte sequence: nothing to track.
        if byte > 0x0D, byte < 0x80, dueContinuations == 0, !afterCarriageReturn { return byte }
        try track(byte)
        return byte
    }

    /// Line ends, NUL bytes and UTF-8 sequences, for `next()`; `offset` already counts `byte`.
    private func track(_ byte: UInt8) throws(TransferError) {
        if afterCarriageReturn {
            afterCarriageReturn = false
            if byte != 0x0A {
                lastLineEndColumn = column - 2
                line += 1
                lineStart = offset - 1
                continuations = 0
            }
        }
        if dueContinuations > 0 {
            guard continuationRange.contains(byte) else { throw invalidSequence(followedBy: byte) }
            dueContinuations -= 1
            continuationRange = 0x80...0xBF
            continuations += 1
            return
        }
        switch byte {
        case 0x0A:
            lastLineEndColumn = column - 1
            line += 1
            lineStart = offset
            continuations = 0
        case 0x0D:
            afterCarriageReturn = true
        case 0x00:
            offset -= 1
            throw TransferError(
                file: name, position: position,
                reason: "a NUL byte (at byte offset \(offset)); text holds none. Is this the file you meant?"
                    + nulAdvice)
        case 0x01..<0x80:
            break
        case 0xC2...0xDF: expectSequence(byte, continuations: 1, 0x80...0xBF)
        case 0xE0: expectSequence(byte, continuations: 2, 0xA0...0xBF)
        case 0xED: expectSequence(byte, continuations: 2, 0x80...0x9F)
        case 0xE1...0xEF: expectSequence(byte, continuations: 2, 0x80...0xBF)
        case 0xF0: expectSequence(byte, continuations: 3, 0x90...0xBF)
        case 0xF1...0xF3: expectSequence(byte, continuations: 3, 0x80...0xBF)
        case 0xF4: expectSequence(byte, continuations: 3, 0x80...0x8F)
        default:
            offset -= 1
            throw TransferError(
                file: name, position: position,
                reason: "byte 0x\(hex(byte)) (at byte offset \(offset)) is not UTF-8 here; \(notUTF8Advice)")
        }
    }

    private func expectSequence(_ lead: UInt8, continuations: Int, _ range: ClosedRange<UInt8>) {
        sequenceStart = (SourcePosition(line: line, column: column - 1), offset - 1, lead)
        dueContinuations = continuations
        continuationRange = range
    }

    /// The error for a UTF-8 sequence that `byte` (nil at the end) does not continue.
    private func invalidSequence(followedBy byte: UInt8?) -> TransferError {
        let next = byte.map { "byte 0x\(hex($0))" } ?? "the end of the file"
        return TransferError(
            file: name, position: sequenceStart.position,
            reason: "byte 0x\(hex(sequenceStart.byte)) (at byte offset \(sequenceStart.offset)) is not UTF-8 here: "
                + "the sequence it starts is cut short by \(next); \(notUTF8Advice)")
    }

    private var notUTF8Advice: String {
        "Shelf reads UTF-8 text. If the file is in another encoding, name it: --encoding windows-1252 "
            + "(or latin1, utf-16le, utf-16be)"
    }

    /// The name as a shell word in advice (see `TransferError.shellWord`).
    private var shellName: String { TransferError.shellWord(name) }

    /// True when the input is a regular file, which a command can read again to its end (not
    /// a pipe, a FIFO or a device such as /dev/zero, whose reading may never end).
    private var isRegularFile: Bool { size != nil }

    /// A command that writes the input as UTF-8 text through `filter` (`tr -d '\000'`) to a
    /// new file ending in `suffix`: decompressed first when it is gzip. Nil when the input is
    /// not a regular file.
    private func command(through filter: String, suffix: String) -> String? {
        guard isRegularFile, name != "stdin" else { return nil }
        guard source.isGzip else {
            return "\(filter) < \(shellName) > \(TransferError.shellWord(name, suffix: suffix))"
        }
        let plain = TransferCompression.innerName(name)
        let target = plain == name ? name + suffix : plain + suffix
        return "gzip -dc \(shellName) | \(filter) > \(TransferError.shellWord(target))"
    }

    /// What to do about a NUL byte: a command that removes them from a file, or for a pipe or
    /// a device no command (reading it again may never end).
    private var nulAdvice: String {
        if let command = command(through: "tr -d '\\000'", suffix: ".clean") {
            return " A NUL in text can be removed with: \(command)"
        }
        return name == "stdin"
            ? " Remove the NUL bytes where the data comes from."
            : " \(name) is not a regular file (a device or a pipe); import a file of text"
    }

    private func hex(_ byte: UInt8) -> String {
        (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    /// The first `length` bytes still to read (fewer at the end, or when the buffer is
    /// smaller), without consuming them.
    func peekPrefix(_ length: Int) throws(TransferError) -> [UInt8] {
        while count - index < min(length, capacity), !atEnd {
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

    /// Skips a UTF-8 byte order mark at the start, and refuses UTF-16 and UTF-32 (with or
    /// without a byte order mark) with the command that converts them, and a few binary
    /// files people pick by mistake (a SQLite database, a spreadsheet, gzip inside gzip).
    /// (Recognizing them takes the first 16 bytes, so a buffer of at least that.)
    /// - Throws: `TransferError` at 1:1 for such an input.
    func checkEncoding() throws(TransferError) {
        let prefix = try peekPrefix(16)
        if let kind = Self.binaryKind(prefix) {
            throw TransferError(file: name, position: SourcePosition(line: 1, column: 1), reason: kind)
        }
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) {
            for _ in 0..<3 { _ = try next() }
            // The mark is not a character of the first line: columns start after it.
            lineStart = offset
            continuations = 0
            return
        }
        let encoding = Self.wideEncoding(prefix)
        guard let encoding else { return }
        throw TransferError(
            file: name, position: SourcePosition(line: 1, column: 1),
            reason: "this is \(encoding) text, not UTF-8, which Shelf reads; "
                + (encoding.hasPrefix("UTF-16") ? "import it with --encoding \(encoding.lowercased()), or " : "")
                + "convert it: "
                + (command(through: "iconv -f \(encoding) -t UTF-8", suffix: ".utf8")
                    ?? "iconv -f \(encoding) -t UTF-8 FILE > FILE.utf8"))
    }

    private func refill() throws(TransferError) -> Bool {
        if !atEnd {
            index = 0
            count = try readMore(into: buffer, capacity: capacity)
            if count > 0 { return true }
            atEnd = true
        }
        if dueContinuations > 0 { throw invalidSequence(followedBy: nil) }
        // A decoding layer stops before a character its encoding does not allow: the
        // position is where that character is.
        if let problem = (source as? TextDecodingSource)?.problem {
            throw TransferError(file: name, position: position, reason: problem)
        }
        return false
    }

    /// Converts the input to UTF-8 as it is read when it is in another encoding: `encoding`,
    /// or, when nil, the one a byte order mark names, else UTF-16 when the first characters
    /// show it (see `TextEncoding.detect`). Call before anything is read. A UTF-16 byte order
    /// mark is skipped; a UTF-8 one is left to `checkEncoding()`, as are binary files.
    /// - Throws: `TransferError` at 1:1 when a byte order mark contradicts `encoding`.
    func decode(_ encoding: TextEncoding?) throws(TransferError) {
        let prefix = try peekPrefix(16)
        guard offset == 0, Self.binaryKind(prefix) == nil else { return }
        let mark = TextEncoding.byteOrderMark(prefix)
        if let encoding, let mark, mark.encoding != encoding {
            throw TransferError(
                file: name, position: SourcePosition(line: 1, column: 1),
                reason: "the file starts with a \(mark.encoding.displayName) byte order mark, so it is "
                    + "\(mark.encoding.displayName) text, not \(encoding.displayName) as --encoding says; "
                    + "leave --encoding out, or name \(mark.encoding.rawValue)")
        }
        let chosen = encoding ?? TextEncoding.detect(prefix)
        guard chosen != .utf8 else { return }
        let skip = mark?.length ?? 0
        let pending = Array(UnsafeBufferPointer(start: buffer + index + skip, count: count - index - skip))
        source = TextDecodingSource(base: source, encoding: chosen, pending: pending, offset: skip)
        index = 0
        count = 0
        atEnd = false
    }

    /// What a binary file that starts with `prefix` is and what to do with it, or nil.
    static func binaryKind(_ prefix: [UInt8]) -> String? {
        if prefix.starts(with: Array("SQLite format 3\u{0}".utf8)) {
            return "this is a SQLite database, not CSV or JSON; export its rows first "
                + "(shelf export, or sqlite3 -csv -header FILE 'SELECT …')"
        }
        if prefix.starts(with: [0x50, 0x4B, 0x03, 0x04]) || prefix.starts(with: [0xD0, 0xCF, 0x11, 0xE0]) {
            return "this is a ZIP or Office file (a spreadsheet such as .xlsx, .ods or .xls?), not CSV; "
                + "save the sheet as CSV UTF-8 and import that"
        }
        if prefix.starts(with: [0x1F, 0x8B]) {
            // Gzip is decompressed before this check: this is gzip inside gzip.
            return "this is gzip-compressed twice; decompress it once first: gunzip -c FILE | shelf import … -"
        }
        return nil
    }

    /// The UTF-16 or UTF-32 encoding the first bytes of a text show (by a byte order mark, or
    /// by the zero bytes of ASCII characters), or nil.
    static func wideEncoding(_ prefix: [UInt8]) -> String? {
        guard prefix.count >= 2 else { return nil }
        let (a, b) = (prefix[0], prefix[1])
        if prefix.count >= 4 {
            let (c, d) = (prefix[2], prefix[3])
            if a == 0, b == 0, (c == 0xFE && d == 0xFF) || (c == 0 && d != 0) { return "UTF-32BE" }
            if c == 0, d == 0, (a == 0xFF && b == 0xFE) || (a != 0 && b == 0) { return "UTF-32LE" }
        }
        if (a == 0xFE && b == 0xFF) || (a == 0 && b != 0) { return "UTF-16BE" }
        if (a == 0xFF && b == 0xFE) || (a != 0 && b == 0) { return "UTF-16LE" }
        return nil
    }

    private func readMore(into start: UnsafeMutablePointer<UInt8>, capacity: Int) throws(TransferError) -> Int {
        try source.read(into: start, capacity: capacity)
    }
}

/// A line and a column in an input file, both from 1.
public struct SourcePosition: Hashable, Sendable, CustomStringConvertible {
    /// The line, from 1. Lines end at LF, CRLF or a lone CR.
    public var line: Int
    /// The column, from 1, in Unicode scalars from the start of the line (UTF-8 continuation
    /// bytes do not move it; on line 1, a byte-order mark is not counted).
    public var column: Int

    /// A position; both values should be 1 or more.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// "line:column", e.g. "12:7", as compilers print positions.
    public var description: String { "\(line):\(column)" }
}
