internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A copy given piece by piece (a million items, read a page at a time), so it is never held
/// whole: up to `Clipboard.maximumTerminalBytes` it is kept, for OSC 52 when the terminal
/// takes it; past that (or when the terminal does not) it streams into the clipboard file, in
/// the same place and with the same mode as `Clipboard.copy(_:)` writes it.
///
/// Safe from any thread (its state is behind a lock); `append` and `finish` block on file
/// writes, so call them from a thread of their own, not from a task. After `finish` or
/// `abandon` it takes nothing more.
public final class ClipboardWriter: Sendable {
    /// Where the copy is when it is finished.
    public enum Outcome: Hashable, Sendable {
        /// Small enough for the terminal, which takes OSC 52: give it to `Clipboard.copy(_:)`
        /// (on the main actor, between frames).
        case text(String)
        /// Written whole to the file at this path.
        case file(path: String)
    }

    private struct State {
        var kept: [UInt8] = []
        /// The open temporary file, once the copy outgrew the terminal, and the runtime folder
        /// it is renamed into when it was made there.
        var file: (descriptor: Int32, path: String, runtime: String?)?
        var closed = false
    }

    private let clipboard: Clipboard
    private let state = Mutex(State())
    /// The file name's ending: `json` or `txt`.
    private let fileExtension: String

    /// A writer for `clipboard`'s destination; a file's name ends in `.json` when `json` is true.
    public init(clipboard: Clipboard, json: Bool = false) {
        self.clipboard = clipboard
        fileExtension = json ? "json" : "txt"
    }

    /// Adds `text` to the copy.
    /// - Throws: `TerminalError` when the file cannot be created or written (nothing is left
    ///   behind: the file is removed).
    public func append(_ text: String) throws {
        try state.withLock { state in
            guard !state.closed else { return }
            do {
                if let file = state.file {
                    try Clipboard.writeAll(Array(text.utf8), to: file.descriptor, name: file.path)
                    return
                }
                state.kept += text.utf8
                if state.kept.count > Clipboard.maximumTerminalBytes
                    || !Clipboard.terminalAccepts(environment: clipboard.environment)
                {
                    let file = try openFile()
                    state.file = file
                    try Clipboard.writeAll(state.kept, to: file.descriptor, name: file.path)
                    state.kept = []
                }
            } catch {
                discard(&state)
                throw error
            }
        }
    }

    /// Ends the copy: the text kept for the terminal, or the path of the file, written and
    /// synced (renamed to `shelf-clipboard.txt` in `$XDG_RUNTIME_DIR` when that is where it is).
    public func finish() throws -> Outcome {
        try state.withLock { state in
            state.closed = true
            guard let file = state.file else { return .text(String(decoding: state.kept, as: UTF8.self)) }
            state.file = nil
            defer { close(file.descriptor) }
            guard fsync(file.descriptor) == 0 else {
                let reason = Clipboard.reason()
                unlink(file.path)
                throw TerminalError(description: "cannot write \(file.path) (\(reason))")
            }
            guard let runtime = file.runtime else { return .file(path: clipboard.keptTemporaryFile(file.path)) }
            let path = "\(runtime)/shelf-clipboard.\(fileExtension)"
            guard rename(file.path, path) == 0 else {
                let reason = Clipboard.reason()
                unlink(file.path)
                throw TerminalError(description: "cannot replace \(path) (\(reason))")
            }
            return .file(path: path)
        }
    }

    /// Ends the copy without writing it (it failed or was cancelled): the file goes.
    public func abandon() {
        state.withLock { discard(&$0) }
    }

    private func discard(_ state: inout State) {
        state.closed = true
        if let file = state.file {
            close(file.descriptor)
            unlink(file.path)
        }
        state.file = nil
        state.kept = []
    }

    /// A new private file (mode 0600) where the clipboard file goes (`Clipboard.fileFolder`).
    private func openFile() throws -> (descriptor: Int32, path: String, runtime: String?) {
        let place = try Clipboard.fileFolder(environment: clipboard.environment)
        let file = try Clipboard.makeFile(in: place.path, fileExtension: fileExtension, isRuntime: place.isRuntime)
        return (file.descriptor, file.path, place.isRuntime ? place.path : nil)
    }
}
