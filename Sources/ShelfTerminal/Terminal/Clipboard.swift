internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Copies text to the clipboard: through the terminal with OSC 52 (`ESC ] 52 ; c ; BASE64
/// BEL`) when the terminal is known to take it, else into a file whose path it returns.
///
/// The terminal is used inside tmux (`TMUX` is set; tmux keeps the text in a paste buffer
/// when its `set-clipboard` option is `on`, and passes it on to the outer terminal) and in
/// xterm-compatible terminals (`TERM` xterm*, alacritty, foot, kitty, wezterm, ghostty, or
/// `TERM_PROGRAM` iTerm.app, WezTerm, vscode, ghostty). A terminal cannot say whether it took
/// the text, so everything else (the Linux console, GNU screen, `dumb`) gets a file, and so
/// does text over `maximumTerminalBytes` (terminals cut long OSC 52 payloads). The environment
/// variable `SHELF_CLIPBOARD=file` always writes the file; `SHELF_CLIPBOARD=osc52` always uses
/// the terminal.
///
/// The file is `shelf-clipboard.txt` (`.json` for JSON) in `$XDG_RUNTIME_DIR` (private to the
/// user), replaced by each copy; without it, a new `shelf-clipboard-XXXXXX.txt` in `$TMPDIR` or
/// `/tmp` (a `TMPDIR` that is not a folder refuses the copy, rather than write it elsewhere), which
/// replaces (removes) the one the same clipboard, or a copy of it, wrote there before. Either
/// is created with mode 0600.
///
/// ```swift
/// let clipboard = Clipboard(environment: ProcessInfo.processInfo.environment)
/// switch try clipboard.copy("#12 [open] Buy milk\n") {
/// case .terminal: status = "copied"
/// case .file(let path): status = "copied to \(path)"
/// }
/// ```
public struct Clipboard: Sendable {
    /// Where a copy went.
    public enum Destination: Hashable, Sendable {
        /// Written to the terminal as OSC 52.
        case terminal
        /// Written to the file at this path.
        case file(path: String)
    }

    /// The largest text, in UTF-8 bytes, sent through the terminal; larger goes to a file.
    public static let maximumTerminalBytes = 100_000

    let environment: [String: String]
    private let terminalOutput: @Sendable ([UInt8]) throws -> Void
    /// The file this clipboard (and every copy of the value) last left in a shared temporary
    /// folder: shared by reference, so a `ClipboardWriter` made from it replaces it too.
    private let lastTemporaryFile = LastTemporaryFile()

    /// A clipboard deciding by `environment` (`TMUX`, `TERM`, `TERM_PROGRAM`, `SHELF_CLIPBOARD`,
    /// `XDG_RUNTIME_DIR`, `TMPDIR`). `terminalOutput` writes the OSC 52 bytes; by default to
    /// standard output, which must be the terminal (call it on the main actor between frames
    /// of an `Application`, as key handlers run). Tests pass their own.
    public init(
        environment: [String: String],
        terminalOutput: @escaping @Sendable ([UInt8]) throws -> Void = Clipboard.writeToStandardOutput
    ) {
        self.environment = environment
        self.terminalOutput = terminalOutput
    }

    /// True when `text` would go through the terminal rather than a file.
    public func usesTerminal(for text: String) -> Bool {
        text.utf8.count <= Self.maximumTerminalBytes && Self.terminalAccepts(environment: environment)
    }

    /// Copies `text`, and says where it went: a file's name ends in `.json` when `json` is
    /// true, else `.txt`.
    /// - Throws: `TerminalError` when the terminal or the file cannot be written (the message
    ///   names the file and the system's reason, e.g. a full disk).
    public func copy(_ text: String, json: Bool = false) throws -> Destination {
        if usesTerminal(for: text) {
            try terminalOutput(Self.sequence(for: text))
            return .terminal
        }
        return .file(path: try writeFile(text, fileExtension: json ? "json" : "txt"))
    }

    /// The values `SHELF_CLIPBOARD` takes (in any case): `file`, or `osc52` and its other name
    /// `terminal`.
    public static let acceptedChoices = ["file", "osc52", "terminal"]

    /// Why `SHELF_CLIPBOARD` in `environment` cannot be followed, naming the variable, its
    /// value and the values it takes; nil when it is unset, empty or one of
    /// `acceptedChoices`. A value it does not know would otherwise be ignored silently, and a
    /// copy go where the user asked it not to.
    public static func choiceProblem(environment: [String: String]) -> String? {
        guard let value = environment["SHELF_CLIPBOARD"], !value.isEmpty,
            !acceptedChoices.contains(value.lowercased())
        else { return nil }
        return "SHELF_CLIPBOARD is \(Sanitizer.sanitize(value).debugDescription), which shelf does not know: "
            + "set it to file (copies go to a file), osc52 or terminal (copies go through the terminal), "
            + "or unset it (shelf picks the terminal when it takes OSC 52, else a file)"
    }

    /// True when the environment names a terminal that takes OSC 52.
    public static func terminalAccepts(environment: [String: String]) -> Bool {
        switch environment["SHELF_CLIPBOARD"]?.lowercased() {
        case "file": return false
        case "osc52", "terminal": return true
        default: break
        }
        if let tmux = environment["TMUX"], !tmux.isEmpty { return true }
        if let program = environment["TERM_PROGRAM"],
            ["iTerm.app", "WezTerm", "vscode", "ghostty"].contains(program)
        {
            return true
        }
        let term = environment["TERM"] ?? ""
        return ["xterm", "alacritty", "foot", "kitty", "wezterm", "ghostty"].contains { term.hasPrefix($0) }
    }

    /// The OSC 52 sequence that puts `text` on the clipboard: `ESC ] 52 ; c ; BASE64 BEL`.
    public static func sequence(for text: String) -> [UInt8] {
        Array("\u{1B}]52;c;".utf8) + base64(Array(text.utf8)) + [0x07]
    }

    /// Writes all of `bytes` to standard output, retrying short and interrupted writes.
    /// - Throws: `TerminalError` with the system's reason.
    public static func writeToStandardOutput(_ bytes: [UInt8]) throws {
        try writeAll(bytes, to: 1, name: "the terminal")
    }

    // MARK: - Files

    /// The folder a clipboard file goes to: `$XDG_RUNTIME_DIR` when it is a folder (then
    /// `isRuntime`), else `$TMPDIR` when it is set, else /tmp.
    /// - Throws: `TerminalError` when `TMPDIR` is set and is not a folder: the copy is refused
    ///   rather than written somewhere the user did not say (as `mktemp` does).
    static func fileFolder(environment: [String: String]) throws -> (path: String, isRuntime: Bool) {
        if let runtime = environment["XDG_RUNTIME_DIR"], isDirectory(runtime) { return (runtime, true) }
        guard let temporary = environment["TMPDIR"], !temporary.isEmpty else { return ("/tmp", false) }
        let advice = "set it to a folder you can write, or unset it"
        var status = stat()
        guard stat(temporary, &status) == 0 else {
            let what = errno == ENOENT ? "does not exist" : "cannot be used (\(reason()))"
            throw TerminalError(description: "TMPDIR \(temporary) \(what); \(advice)")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw TerminalError(description: "TMPDIR \(temporary) is not a folder; \(advice)")
        }
        return (temporary, false)
    }

    /// A new private file (mode 0600) named `shelf-clipboard-XXXXXX.EXTENSION` in `folder`.
    /// - Throws: `TerminalError` naming the folder and the system's reason.
    /// `isRuntime` says the folder is `$XDG_RUNTIME_DIR`, for the advice.
    static func makeFile(
        in folder: String, fileExtension: String, isRuntime: Bool = false
    ) throws -> (descriptor: Int32, path: String) {
        var template = Array("\(folder)/shelf-clipboard-XXXXXX.\(fileExtension)".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return Int32(-1) }
            return mkstemps(base, Int32(fileExtension.utf8.count + 1))
        }
        guard descriptor >= 0 else {
            throw TerminalError(
                description: "cannot create a file in \(folder) (\(reason())); "
                    + (isRuntime
                        ? "it is XDG_RUNTIME_DIR: make it writable, or unset XDG_RUNTIME_DIR to use TMPDIR"
                        : "set TMPDIR to a folder you can write"))
        }
        return (descriptor, String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    private func writeFile(_ text: String, fileExtension: String) throws -> String {
        let place = try Self.fileFolder(environment: environment)
        let runtime = place.isRuntime ? place.path : nil
        let (descriptor, temporary) = try Self.makeFile(
            in: place.path, fileExtension: fileExtension, isRuntime: place.isRuntime)
        do {
            defer { close(descriptor) }
            try Self.writeAll(Array(text.utf8), to: descriptor, name: temporary)
            guard fsync(descriptor) == 0 else {
                throw TerminalError(description: "cannot write \(temporary) (\(Self.reason()))")
            }
        } catch {
            unlink(temporary)
            throw error
        }
        // In the user's private runtime folder, one well-known file, replaced whole.
        guard let runtime else { return keptTemporaryFile(temporary) }
        let path = "\(runtime)/shelf-clipboard.\(fileExtension)"
        guard rename(temporary, path) == 0 else {
            let reason = Self.reason()
            unlink(temporary)
            throw TerminalError(description: "cannot replace \(path) (\(reason))")
        }
        return path
    }

    /// Returns `path`, the clipboard file just written to a shared temporary folder (no
    /// `XDG_RUNTIME_DIR`), after removing the one this clipboard wrote there before: a copy
    /// replaces the last one, as the runtime folder's one well-known file is replaced, so that a
    /// browser copying a million items again and again does not fill /tmp with 50 MB files.
    /// The newest stays for the user to paste from after the browser ends.
    func keptTemporaryFile(_ path: String) -> String {
        let previous = lastTemporaryFile.path.withLock { last in
            defer { last = path }
            return last
        }
        if let previous, previous != path { unlink(previous) }
        return path
    }

    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return !path.isEmpty && stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32, name: String) throws {
        try bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw TerminalError(description: "cannot write to \(name) (\(reason()))")
                }
                offset += written
            }
        }
    }

    static func reason() -> String { String(cString: strerror(errno)) }

    // MARK: - Base64

    static func base64(_ bytes: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let first = UInt32(bytes[index])
            let second = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let third = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let group = first << 16 | second << 8 | third
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(index + 1 < bytes.count ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            output.append(index + 2 < bytes.count ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return output
    }
}

/// The path of the clipboard file last written to a shared temporary folder.
private final class LastTemporaryFile: Sendable {
    let path = Mutex<String?>(nil)
}
