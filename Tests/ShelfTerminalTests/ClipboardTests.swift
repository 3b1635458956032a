import Foundation
import Testing

@testable import ShelfTerminal

@Suite("Clipboard")
struct ClipboardTests {
    @Test func theSequenceIsOSC52WithBase64() {
        #expect(Clipboard.sequence(for: "hi") == Array("\u{1B}]52;c;aGk=\u{07}".utf8))
        for text in ["", "a", "ab", "abc", "abcd", "é日本", String(repeating: "xyz", count: 1000)] {
            let encoded = String(decoding: Clipboard.base64(Array(text.utf8)), as: UTF8.self)
            #expect(encoded == Data(text.utf8).base64EncodedString())
        }
    }

    @Test(arguments: [
        (["TMUX": "/tmp/tmux-1000/default,1,0", "TERM": "screen"], true),
        (["TERM": "xterm-256color"], true),
        (["TERM": "alacritty"], true),
        (["TERM": "linux"], false),
        (["TERM": "screen"], false),
        (["TERM": "dumb"], false),
        ([:], false),
        (["TERM_PROGRAM": "iTerm.app", "TERM": "unknown"], true),
        (["TERM": "xterm", "SHELF_CLIPBOARD": "file"], false),
        (["TERM": "linux", "SHELF_CLIPBOARD": "osc52"], true),
    ])
    func theEnvironmentDecides(_ environment: [String: String], _ terminal: Bool) {
        #expect(Clipboard.terminalAccepts(environment: environment) == terminal)
    }

    @Test func largeTextGoesToAFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-clip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clipboard = Clipboard(environment: ["TERM": "xterm", "TMPDIR": folder.path]) { _ in
            Issue.record("nothing goes to the terminal")
        }
        let large = String(repeating: "x", count: Clipboard.maximumTerminalBytes + 1)
        guard case .file(let path) = try clipboard.copy(large) else {
            Issue.record("a file was expected")
            return
        }
        #expect(path.hasPrefix(folder.path + "/shelf-clipboard-") && path.hasSuffix(".txt"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == large)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // The next copy replaces it (hostile round 4: every `y` of a million items left a new
        // 50 MB file in /tmp), through the clipboard or a streaming writer made from it.
        guard case .file(let second) = try clipboard.copy(large + "y") else {
            Issue.record("a file was expected")
            return
        }
        #expect(second != path && !FileManager.default.fileExists(atPath: path))
        let writer = ClipboardWriter(clipboard: clipboard, json: true)
        try writer.append(large)
        guard case .file(let third) = try writer.finish() else {
            Issue.record("a file was expected")
            return
        }
        #expect(third.hasSuffix(".json"), "Y's JSON goes to a .json file")
        #expect(!FileManager.default.fileExists(atPath: second))
        #expect(try String(contentsOfFile: third, encoding: .utf8) == large)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
    }

    /// Hostile round 13: a TMPDIR that did not exist sent the file to /tmp without a word. A
    /// TMPDIR that is not a folder refuses the copy, saying why and what to do.
    @Test func aTMPDIRThatIsNoFolderRefusesTheCopy() throws {
        let missing = "/nonexistent-\(UUID().uuidString.prefix(8))"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { unlink(file) }
        for (folder, why) in [(missing, "does not exist"), (file, "is not a folder")] {
            let clipboard = Clipboard(environment: ["SHELF_CLIPBOARD": "file", "TMPDIR": folder])
            let error = #expect(throws: TerminalError.self) { try clipboard.copy("text") }
            #expect(
                error?.description == "TMPDIR \(folder) \(why); set it to a folder you can write, or unset it",
                "\(String(describing: error))")
            let writer = ClipboardWriter(clipboard: clipboard)
            #expect(throws: TerminalError.self) { try writer.append("text") }
        }
        // Unset or empty: /tmp.
        let unset = Clipboard(environment: ["SHELF_CLIPBOARD": "file", "TMPDIR": ""])
        guard case .file(let path) = try unset.copy("text") else {
            Issue.record("a file was expected")
            return
        }
        defer { unlink(path) }
        #expect(path.hasPrefix("/tmp/shelf-clipboard-"))
    }

    @Test func aFailedWriteSaysWhere() {
        let clipboard = Clipboard(environment: ["SHELF_CLIPBOARD": "file", "TMPDIR": "/proc"])
        #expect(throws: TerminalError.self) { try clipboard.copy("text") }
    }
}
