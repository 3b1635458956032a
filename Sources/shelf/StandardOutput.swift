import Foundation
import ShelfStore
import Synchronization

/// Standard output for every command: each write is checked, so output that cannot be
/// written is an error (`Error: cannot write to stdout: No space left on device`, exit 1),
/// never a crash and never a silent success. A reader that went away (a closed pipe,
/// `shelf items list | head -1`) throws `ReaderGone`, which ends the command quietly with 0.
///
/// No command uses `print` or `FileHandle.standardOutput`: stdio buffers, and its errors
/// surface (if at all) after the command has reported success.
enum StandardOutput {
    /// Whether descriptor 1 was closed when the process started (`shelf … >&-`).
    private static let startedClosed = Atomic(false)
    /// Whether stdout passed `OutputSafety` (checked before the first write).
    private static let checked = Atomic(false)

    /// Makes the standard descriptors safe before anything else opens a file: a closed 0, 1 or
    /// 2 is opened on /dev/null (read-only, so writes to it fail), so that no database or
    /// output file can become descriptor 1 and receive what commands print. A closed pipe
    /// gives EPIPE instead of killing the process.
    static func prepare() {
        signal(SIGPIPE, SIG_IGN)
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            if descriptor == 1 { startedClosed.store(true, ordering: .relaxed) }
            let opened = open("/dev/null", O_RDONLY)
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
    }

    /// Throws the error a write would when stdout was closed at the start.
    static func checkOpen() throws {
        if startedClosed.load(ordering: .relaxed) { throw failure(EBADF) }
    }

    /// Writes `text` (UTF-8), all of it.
    /// - Throws: `ReaderGone` on a closed pipe, `CommandError` on any other failure.
    static func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes `bytes`, all of them.
    static func write(_ bytes: some Collection<UInt8>) throws {
        let array = Array(bytes)
        try array.withUnsafeBytes { try write($0) }
    }

    private static func write(_ buffer: UnsafeRawBufferPointer) throws {
        guard let base = buffer.baseAddress else { return }
        if !checked.load(ordering: .relaxed) {
            try checkDestination()
            checked.store(true, ordering: .relaxed)
        }
        var written = 0
        while written < buffer.count {
            var size = buffer.count - written
            if mayStall {
                // A reader that stalls (a pager not reading) must not keep a signal from
                // ending the command: wait in poll, and stop once a signal came.
                var entry = pollfd(fd: 1, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&entry, 1, 250)
                if SignalRelay.shared.signal != nil { throw CancellationError() }
                if ready == 0 { continue }
                size = min(size, Int(PIPE_BUF))
            }
            let result = Glibc.write(1, base + written, size)
            if result < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            written += result
        }
    }

    /// Whether stdout is a pipe, socket or terminal, whose reader may stall.
    private static let mayStall: Bool = {
        var status = stat()
        guard fstat(1, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFSOCK || isatty(1) == 1
    }()

    /// Refuses a stdout that is the open database or a part of it, or another SQLite file
    /// (`shelf items list >> shelf.sqlite` would append text to the database).
    private static func checkDestination() throws {
        do {
            try OutputSafety.check(descriptor: 1, name: "stdout", protecting: OpenDatabases.files)
        } catch {
            throw CommandError(error.description)
        }
    }

    /// The error for a failed write with `number` as errno.
    static func failure(_ number: Int32) -> any Error {
        if number == EPIPE { return ReaderGone() }
        if startedClosed.load(ordering: .relaxed) || number == EBADF {
            return CommandError("cannot write to stdout: it is closed; run the command with its output open")
        }
        return CommandError("cannot write to stdout: \(String(cString: strerror(number)))")
    }

    /// True when stdout is a pipe or terminal whose other end is gone (POLLERR or POLLHUP).
    static var readerIsGone: Bool {
        var descriptor = pollfd(fd: 1, events: 0, revents: 0)
        return poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
    }

    /// Calls `body` once stdout's reader is gone (a pipe's reader closed it, a terminal hung
    /// up), from a thread of its own; never for a file or device, which have no reader.
    static func whenReaderGone(_ body: @escaping @Sendable () -> Void) {
        Thread.detachNewThread {
            var descriptor = pollfd(fd: 1, events: 0, revents: 0)
            // With no events asked for, poll waits for errors and hang-ups only.
            while true {
                let result = poll(&descriptor, 1, -1)
                if result < 0, errno == EINTR { continue }
                if result == 1, descriptor.revents & Int16(POLLERR | POLLHUP) != 0 { body() }
                return
            }
        }
    }

    /// Flushes whatever the C library still buffers (nothing, unless a library used
    /// `print`), so that its failure is reported too.
    /// - Throws: as `write(_:)` does.
    static func flushStandardIO() throws {
        if fflush(nil) != 0 { throw failure(errno) }
    }
}

/// Standard output's reader went away: the command stops, quietly, with status 0.
struct ReaderGone: Error {}

/// The reader of an export's output (a stdout pipe, a FIFO given with `-o`) went away before
/// the export's end (`shelf export items | head -1`): what it got is not the export, and a
/// `set -o pipefail` script must see that. `main` ends the process as GNU tools end on a closed
/// pipe (`seq 1000000 | head -1`): killed by SIGPIPE, status 141 in a shell, silently. Silent,
/// since the reader chose to stop and there is nothing to fix; 141 rather than 1, since a
/// script can tell it from a failure (`|| [ $? -eq 141 ]` accepts a deliberate `| head`) and
/// it is the "128 + N, signal N stopped the command" the exit statuses promise.
struct ExportCut: Error {}

/// Lines for stdout, gathered into large writes: rows of a long list cost one system call per
/// 64 KiB, not per row, and memory stays bounded.
struct OutputBuffer {
    private var bytes: [UInt8] = []
    private static let chunk = 1 << 16

    init() {
        bytes.reserveCapacity(Self.chunk * 2)
    }

    /// Adds `text`; writes when the buffer is full.
    /// - Throws: as `StandardOutput.write(_:)`.
    mutating func append(_ text: String) throws {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= Self.chunk { try flush() }
    }

    /// Writes everything buffered.
    mutating func flush() throws {
        guard !bytes.isEmpty else { return }
        try StandardOutput.write(bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Writes `text` and a line break to stdout, checked (see `StandardOutput`).
func printLine(_ text: String) throws {
    try StandardOutput.write(text + "\n")
}

/// Writes `text` and a line break to stderr. A failure there cannot be reported anywhere,
/// so it is ignored (never a crash, as `FileHandle.write` would make it).
func printError(_ text: String) {
    writeStandardError(escapingControls(text) + "\n")
}

/// Writes `text` to stderr as it is, ignoring failures.
func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { buffer in
        guard let base = buffer.baseAddress else { return }
        var written = 0
        while written < buffer.count {
            let result = Glibc.write(2, base + written, buffer.count - written)
            if result < 0, errno == EINTR { continue }
            if result <= 0 { return }
            written += result
        }
    }
}

/// A message with every control, bidi and separator character shown as `\u{…}` (line
/// breaks and tabs kept): a message may quote a file name, an email or a value, and none of
/// them may move the cursor, retitle the terminal or set the clipboard (OSC 52).
func escapingControls(_ text: String) -> String {
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        let value = scalar.value
        let shown =
            value == 0x0A || value == 0x09
            ? false
            : value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
                || (0x200E...0x200F).contains(value) || (0x202A...0x202E).contains(value)
                || (0x2066...0x2069).contains(value)
        if shown {
            result.append(contentsOf: "\\u{\(String(value, radix: 16, uppercase: true))}".unicodeScalars)
        } else {
            result.append(scalar)
        }
    }
    return String(result)
}
