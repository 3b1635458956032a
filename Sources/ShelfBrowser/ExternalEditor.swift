internal import Foundation
internal import ShelfTerminal

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Edits text in the person's own editor: `$VISUAL`, else `$EDITOR`, else `vi`.
///
/// The text goes into a new temporary file (mode 0600, in the temporary folder), the editor
/// runs on it in the foreground with the screen left (`Application.runOutsideScreen(_:)`), and
/// the file is removed afterwards whatever happened. The command is run by `/bin/sh` with the
/// file as its last argument, as git runs its editor, so `EDITOR="code --wait"` works.
public enum ExternalEditor {
    /// What came of an edit.
    public enum Outcome: Hashable, Sendable {
        /// The editor exited with status 0 and the file holds this UTF-8 text (one line break
        /// at the end, which editors add, dropped).
        case edited(String)
        /// Nothing changes; the message says why (the editor failed or was not found, the
        /// file is not UTF-8).
        case unchanged(String)
    }

    /// The editor command `environment` names: `VISUAL`, else `EDITOR`, else `vi` (empty
    /// values count as unset).
    public static func command(environment: [String: String]) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty { return value }
        }
        return "vi"
    }

    /// Lets the person edit `text` in their editor, out of the running application's screen
    /// (restored afterwards), and returns the new text or why there is none. `environment`
    /// names the editor (nil: this process's environment). Blocks the main actor while the
    /// editor runs.
    @MainActor
    public static func edit(_ text: String, environment: [String: String]? = nil) -> Outcome {
        let command = command(environment: environment ?? ProcessInfo.processInfo.environment)
        // Messages name the command, cut when long (a script can be hundreds of characters).
        let name = command.count > 40 ? command.prefix(39) + "…" : command
        let path: String
        do {
            path = try makeFile(holding: text)
        } catch {
            return .unchanged("Could not make a temporary file for the editor: \(error)")
        }
        defer { unlink(path) }
        let outcome: ForegroundProcess.Outcome
        do {
            outcome = try Application.runOutsideScreen {
                try ForegroundProcess.run(["/bin/sh", "-c", command + " \"$@\"", command, path])
            }
        } catch {
            return .unchanged("Could not run the editor (\(name)): \(error); the notes are unchanged.")
        }
        switch outcome {
        case .exited(0): break
        case .exited(127):
            return .unchanged(
                "The editor \(name) was not found (exit status 127); set VISUAL or EDITOR. The notes are unchanged.")
        case .exited(let status):
            return .unchanged("The editor \(name) exited with status \(status); the notes are unchanged.")
        case .signaled(let number):
            return .unchanged("The editor \(name) was ended by signal \(number); the notes are unchanged.")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .unchanged("The editor left no file at \(path) to read; the notes are unchanged.")
        }
        guard var edited = String(validating: data, as: UTF8.self) else {
            return .unchanged("The edited notes are not valid UTF-8 text; the notes are unchanged.")
        }
        if edited.hasSuffix("\r\n") {
            edited.removeLast()
        } else if edited.hasSuffix("\n") {
            edited.removeLast()
        }
        return .edited(edited)
    }

    /// A new file (mode 0600) in the temporary folder holding `text`; its path.
    private static func makeFile(holding text: String) throws -> String {
        let pattern = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-notes-XXXXXX.txt").path
        var template = Array(pattern.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemps($0, 4) } ?? -1
        }
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                let code = POSIXErrorCode(rawValue: errno) ?? .EIO
                unlink(path)
                throw POSIXError(code)
            }
            offset += written
        }
        return path
    }
}
