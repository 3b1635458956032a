internal import Foundation
internal import ShelfStore

/// Buffered output to a file descriptor.
///
/// Every destination passes `OutputSafety` first: the open database, its companions, the
/// command's input and any SQLite file are refused. A regular file is written beside its
/// final path and renamed into place by `commit()` (keeping the permission bits of the file
/// it replaces), so a failed export leaves the old file as it was; a device, FIFO or
/// `/dev/stdout` is written in place and never renamed over.
final class ByteOutput {
    /// The name errors use: a path, or "stdout".
    let name: String
    private let descriptor: Int32
    /// Whether `descriptor` is ours to close.
    private let ownsDescriptor: Bool
    private let finalPath: String?
    private let temporaryPath: String?
    private var committed = false
    /// True when the descriptor is a terminal: control characters in the data are shown as
    /// placeholders instead of reaching it (an OSC 52 in a title would set the clipboard).
    /// Files and pipes get the exact bytes.
    private let escapesForTerminal: Bool
    /// The end of the last chunk when it stopped inside a UTF-8 sequence.
    private var carry: [UInt8] = []
    /// True for a pipe, socket or terminal, whose reader may stall: writes then wait in
    /// `poll` and check `isCancelled`, so a stalled reader cannot keep a cancelled export
    /// (a signal) from ending.
    private var waitsForReader = false
    /// Asked while a write waits for a stalled reader; true stops the write with an error.
    var isCancelled: @Sendable () -> Bool = { false }
    /// Set by `compressWithGzip()`: everything written goes through it.
    private var compressor: GzipCompressor?
    /// Bytes waiting to be written; append to it, then call `flushIfFull()`.
    var bytes: [UInt8] = []
    /// Told of every byte written, and of every row once its last byte is (`track(_:)`).
    private var delivery: ExportDelivery?
    /// True when rows are counted as delivered: append to `rowEnds` at the end of each row.
    private(set) var countsRows = false
    /// Where each row of `bytes` ends (offsets into it), while `countsRows`.
    var rowEnds: [Int] = []
    /// The rows of `rowEnds` already said delivered.
    private var rowsDelivered = 0
    private static let chunk = 1 << 16

    /// Writes to an open descriptor (stdout); does not close it.
    /// - Throws: `TransferError` when the descriptor is one of `protecting` (or a companion)
    ///   or holds a SQLite database (`shelf export >> shelf.sqlite`).
    init(descriptor: Int32, name: String, protecting: [String] = []) throws(TransferError) {
        do {
            try OutputSafety.check(descriptor: descriptor, name: name, protecting: protecting)
        } catch {
            throw TransferError(error.description)
        }
        self.descriptor = descriptor
        self.name = name
        ownsDescriptor = false
        escapesForTerminal = isatty(descriptor) == 1
        finalPath = nil
        temporaryPath = nil
        waitsForReader = Self.mayStall(descriptor)
        bytes.reserveCapacity(Self.chunk * 2)
    }

    /// Writes to `path`: a regular file is created beside it and renamed over it by
    /// `commit()`; anything else is written in place. A FIFO is opened once a program reads
    /// it; waking `wake` stops that wait.
    /// - Throws: `TransferError` when `OutputSafety` refuses the path (it is in `protecting`,
    ///   a companion of one, or a SQLite file), it cannot be created, or `wake` was woken
    ///   while it waited for a FIFO's reader.
    init(path: String, protecting: [String] = [], wake: InputWake? = nil) throws(TransferError) {
        let destination: OutputSafety.Destination
        do {
            destination = try OutputSafety.check(path: path, protecting: protecting)
        } catch {
            throw TransferError(error.description)
        }
        name = path
        var escapes = false
        switch destination {
        case .descriptor(let number):
            descriptor = number
            ownsDescriptor = false
            escapes = isatty(number) == 1
            finalPath = nil
            temporaryPath = nil
        case .inPlace(let path):
            let opened =
                if let wake, Self.isFIFO(path) {
                    try wake.openForWriting(path)
                } else {
                    open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
                }
            guard opened >= 0 else {
                let reason = errno
                let advice =
                    switch reason {
                    case EISDIR: "it is a folder; name a file in it, e.g. \(ShellQuoting.quoted(path + "/export.csv"))"
                    case EACCES, EPERM, EROFS: "check its permissions"
                    default: "check the path"
                    }
                throw TransferError("cannot open \(path) for writing: \(String(cString: strerror(reason))); \(advice)")
            }
            // Checked again once open: the path may have changed since the check.
            var status = stat()
            if fstat(opened, &status) != 0 || status.st_mode & S_IFMT == S_IFREG {
                close(opened)
                throw TransferError("cannot write \(path): it changed while opening it; try again")
            }
            descriptor = opened
            ownsDescriptor = true
            escapes = isatty(opened) == 1
            finalPath = nil
            temporaryPath = nil
        case .newFile(let path), .replaceFile(let path, _, _, _):
            let folder = (path as NSString).deletingLastPathComponent
            let base = (path as NSString).lastPathComponent
            // What an export killed before it renamed its file left (see `WorkFile`).
            WorkFile.removeAbandoned(in: folder, prefix: ".\(base).partial-")
            // Made claimed (ours until this process closes it, or ends): a cleanup never sees it
            // unclaimed, so it needs no age to tell a live export's file from an abandoned one.
            let temporary = (folder.isEmpty ? "." : folder) + "/.\(base).partial-\(UUID().uuidString)"
            guard let opened = WorkFile.create(temporary) else {
                throw TransferError(
                    "cannot create \(path): \(Self.errorText()); check that its folder exists and is writable")
            }
            let permissions: mode_t
            if case .replaceFile(_, let kept, let owner, let group) = destination {
                // The same owner first (allowed to root, or when it is already ours), so the
                // mode's set-id bits are not cleared by a later chown.
                _ = fchown(opened, owner, group)
                permissions = mode_t(kept)
            } else {
                permissions = 0o666 & ~Self.fileCreationMask()
            }
            fchmod(opened, permissions)
            descriptor = opened
            ownsDescriptor = true
            finalPath = path
            temporaryPath = temporary
        }
        escapesForTerminal = escapes
        waitsForReader = Self.mayStall(descriptor)
        bytes.reserveCapacity(Self.chunk * 2)
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
        if let temporaryPath, !committed { unlink(temporaryPath) }
    }

    /// From now on, tells `delivery` what is written; call it once the output is set up
    /// (after `compressWithGzip()`). Rows are counted only when the bytes are the rows'
    /// (neither compressed nor escaped for a terminal) and the destination is written in place.
    func track(_ delivery: ExportDelivery) {
        self.delivery = delivery
        let inPlace = temporaryPath == nil
        countsRows = inPlace && compressor == nil && !escapesForTerminal
        delivery.opened(inPlace: inPlace, countsRows: countsRows)
    }

    @inline(__always)
    func flushIfFull() throws(TransferError) {
        if bytes.count >= Self.chunk { try flush() }
    }

    /// From now on, writes gzip data (see `GzipCompressor`); `commit()` ends it.
    /// - Throws: `TransferError` when the output is a terminal: compressed bytes are refused
    ///   there, as `gzip` refuses them.
    func compressWithGzip() throws(TransferError) {
        guard !escapesForTerminal else {
            throw TransferError(
                "compressed data is not written to a terminal (\(name)); redirect it to a file or a pipe "
                    + "(shelf export … --gzip > FILE.gz), or name the file with -o FILE.gz")
        }
        compressor = try GzipCompressor(name: name)
    }

    /// Writes everything buffered.
    func flush() throws(TransferError) {
        try flush(finishing: false)
    }

    private func flush(finishing: Bool) throws(TransferError) {
        if let compressor {
            try compressor.compress(bytes, finishing: finishing) { chunk throws(TransferError) in try writeAll(chunk) }
            bytes.removeAll(keepingCapacity: true)
        } else if escapesForTerminal {
            var escaped = carry
            carry = TerminalText.escape(bytes, into: &escaped)
            try writeAll(escaped)
            bytes.removeAll(keepingCapacity: true)
        } else {
            try writeAll(bytes)
            bytes.removeAll(keepingCapacity: true)
            rowEnds.removeAll(keepingCapacity: true)
            rowsDelivered = 0
        }
    }

    private func writeAll(_ bytes: [UInt8]) throws(TransferError) {
        try bytes.withUnsafeBufferPointer { buffer throws(TransferError) in try writeAll(UnsafeRawBufferPointer(buffer))
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        var written = 0
        while written < bytes.count {
            var size = bytes.count - written
            if waitsForReader {
                guard try waitUntilWritable() else { continue }
                // Room for at least this much once poll says writable: the write cannot block.
                size = min(size, Int(PIPE_BUF))
            }
            let result = write(descriptor, bytes.baseAddress.map { $0 + written }, size)
            if result < 0 {
                if errno == EINTR { continue }
                let readerGone = errno == EPIPE
                let full = errno == ENOSPC || errno == EDQUOT
                var message = "cannot write to \(name): \(Self.errorText())"
                // A file is written beside its name and renamed there only when whole: say so,
                // and what to do (hostile check: the old file was kept, and the message did not
                // say it).
                if temporaryPath != nil {
                    message += "; \(name) was not written (a file that was there is left as it was)"
                    if full { message += ": free space on its disk, or export to another place" }
                }
                var error = TransferError(message)
                error.readerGone = readerGone
                throw error
            }
            written += result
            if let delivery { delivered(written, result, to: delivery) }
        }
    }

    /// Tells `delivery` of `count` more bytes written, and of the rows of `bytes` that now
    /// end within the first `written` (`writeAll` of `bytes`, the only call while rows count).
    private func delivered(_ written: Int, _ count: Int, to delivery: ExportDelivery) {
        delivery.delivered(bytes: count)
        guard countsRows else { return }
        let before = rowsDelivered
        while rowsDelivered < rowEnds.count, rowEnds[rowsDelivered] <= written { rowsDelivered += 1 }
        if rowsDelivered > before { delivery.delivered(rows: rowsDelivered - before) }
    }

    /// Waits up to a quarter second for room to write; false when there is none yet.
    /// - Throws: when `isCancelled` says so.
    private func waitUntilWritable() throws(TransferError) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&entry, 1, 250)
        if isCancelled() { throw TransferError("stopped writing \(name): cancelled") }
        // An error or hang-up is reported by the write that follows.
        return ready != 0
    }

    /// The process's umask, read without changing it: setting it to read it (`umask(0)`) would
    /// let a file another thread creates meanwhile (a `-wal`) be made world-writable.
    private static func fileCreationMask() -> mode_t {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let mask = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        {
            return mask
        }
        return 0o022
    }

    /// Whether `path` names a FIFO (following symbolic links, as `open` does).
    private static func isFIFO(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
    }

    /// Whether `descriptor` is a pipe, socket or terminal.
    private static func mayStall(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFSOCK || isatty(descriptor) == 1
    }

    /// Flushes, and for a file makes it durable and moves it into place.
    func commit() throws(TransferError) {
        try flush(finishing: true)
        if !carry.isEmpty {
            // A carriage return at the very end, or a sequence cut short, shown as a placeholder.
            let last = carry == [0x0D] ? [0xE2, 0x90, 0x8D] : [0xEF, 0xBF, 0xBD] as [UInt8]
            carry = []
            try writeAll(last)
        }
        guard let finalPath, let temporaryPath else { return }
        guard fsync(descriptor) == 0, rename(temporaryPath, finalPath) == 0 else {
            throw TransferError("cannot write \(finalPath): \(Self.errorText())")
        }
        committed = true
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }
}

/// Text for a terminal: what `ShelfTerminal`'s `Sanitizer` does for the browser, on UTF-8
/// bytes. C0 controls (but line feed, tab, and carriage return before a line feed, which end
/// CSV rows) become the Unicode control pictures (`␛` for Escape), DEL `␡`, and C1 controls
/// and bidirectional overrides, isolates and marks `�`.
enum TerminalText {
    /// Appends `bytes`, escaped, to `output`; returns the trailing bytes of an unfinished UTF-8
    /// sequence, to be put before the next chunk.
    static func escape(_ bytes: [UInt8], into output: inout [UInt8]) -> [UInt8] {
        output.reserveCapacity(output.count + bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                switch byte {
                case 0x0A, 0x09: output.append(byte)
                case 0x0D where index + 1 < bytes.count && bytes[index + 1] == 0x0A: output.append(byte)
                case 0x0D where index + 1 == bytes.count: return [byte]  // a CR LF may be cut in two
                case 0x00..<0x20: output.append(contentsOf: [0xE2, 0x90, 0x80 + byte])
                case 0x7F: output.append(contentsOf: [0xE2, 0x90, 0xA1])
                default: output.append(byte)
                }
                index += 1
                continue
            }
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            if index + length > bytes.count { return Array(bytes[index...]) }
            let sequence = bytes[index..<index + length]
            if isUnsafe(sequence) {
                output.append(contentsOf: [0xEF, 0xBF, 0xBD])
            } else {
                output.append(contentsOf: sequence)
            }
            index += length
        }
        return []
    }

    /// C1 controls (U+0080–U+009F), bidi marks and overrides (U+061C, U+200E, U+200F,
    /// U+202A–U+202E, U+2066–U+2069).
    private static func isUnsafe(_ sequence: ArraySlice<UInt8>) -> Bool {
        let start = sequence.startIndex
        switch sequence.count {
        case 2:
            let (first, second) = (sequence[start], sequence[start + 1])
            return (first == 0xC2 && second < 0xA0) || (first == 0xD8 && second == 0x9C)
        case 3:
            let (first, second, third) = (sequence[start], sequence[start + 1], sequence[start + 2])
            guard first == 0xE2 else { return false }
            if second == 0x80 { return third == 0x8E || third == 0x8F || (0xAA...0xAE).contains(third) }
            if second == 0x81 { return (0xA6...0xA9).contains(third) }
            return false
        default: return false
        }
    }
}

/// Encodings shared by the writers.
enum Encode {
    /// A CSV field: nothing for nil (no value), `""` for empty text, quoted when it holds
    /// `delimiter` (a comma by default), a quote, a line break, or starts or ends with white space.
    @inline(__always)
    static func csv(_ text: String?, delimiter: UInt8 = 0x2C, into bytes: inout [UInt8]) {
        guard var text else { return }
        text.withUTF8 { csv($0, delimiter: delimiter, into: &bytes) }
    }

    /// `csv(_:delimiter:into:)` for UTF-8 bytes.
    @inline(__always)
    static func csv(_ utf8: UnsafeBufferPointer<UInt8>, delimiter: UInt8 = 0x2C, into bytes: inout [UInt8]) {
        var needsQuotes = utf8.isEmpty
        if let first = utf8.first, let last = utf8.last {
            needsQuotes = first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
        }
        if !needsQuotes {
            for byte in utf8 where byte == delimiter || byte == 0x22 || byte == 0x0A || byte == 0x0D {
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

    /// A JSON string in quotes, or `null`. Only `"`, `\` and control characters are escaped;
    /// everything else is written as UTF-8.
    @inline(__always)
    static func json(_ text: String?, into bytes: inout [UInt8]) {
        guard var text else {
            bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            return
        }
        text.withUTF8 { json($0, into: &bytes) }
    }

    /// `json(_:into:)` for UTF-8 bytes.
    @inline(__always)
    static func json(_ utf8: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        bytes.append(0x22)
        // Most text needs no escape: one append for all of it.
        guard utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) else {
            bytes.append(contentsOf: utf8)
            bytes.append(0x22)
            return
        }
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
        bytes.append(0x22)
    }

    /// A whole number in decimal.
    @inline(__always)
    static func integer(_ value: Int64, into bytes: inout [UInt8]) {
        guard value >= 0 else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        // Digits from the last into a buffer on the stack (19 at most), then one append.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            var rest = value
            repeat {
                index -= 1
                buffer[index] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index...]))
        }
    }

    /// Appends an ASCII literal.
    @inline(__always)
    static func ascii(_ literal: StaticString, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
