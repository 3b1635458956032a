import Foundation
import ShelfTerminal
import ShelfTerminalTesting
import Testing

@testable import ShelfBrowser

/// `ExternalEditor` with scripts as editors. Outside a running application the editor runs
/// without leaving any screen, so these run headless.
@MainActor
@Suite("External editor")
struct ExternalEditorTests {
    func edit(_ text: String, with editor: String) -> ExternalEditor.Outcome {
        ExternalEditor.edit(text, environment: ["EDITOR": editor, "VISUAL": ""])
    }

    @Test func theEditorsTextReplacesTheNotesAndTheFileIsPrivateAndRemoved() throws {
        let record = FileManager.default.temporaryDirectory.appendingPathComponent("editor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: record) }
        // The script records the file's mode, its text and its path (in the file named by
        // its $0), then appends a line to the notes.
        let script =
            #"sh -c 'stat -c %a "$1" > "$0"; cat "$1" >> "$0"; echo >> "$0"; echo "$1" >> "$0"; printf "\nadded\n" >> "$1"' "#
        let outcome = edit("old notes\nkept", with: script + record.path)
        #expect(outcome == .edited("old notes\nkept\nadded"))
        let lines = try String(contentsOf: record, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "600")
        #expect(lines.dropFirst().prefix(2) == ["old notes", "kept"])
        let path = try #require(lines.last)
        #expect(path.hasSuffix(".txt") && path.contains("shelf-notes-"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFailingEditorLeavesTheNotesAndSaysSo() {
        #expect(
            edit("notes", with: "sh -c 'exit 3' sh")
                == .unchanged("The editor sh -c 'exit 3' sh exited with status 3; the notes are unchanged."))
        #expect(edit("notes", with: "/nonexistent/editor").isUnchanged(containing: "was not found"))
    }

    @Test func invalidUTF8IsRefused() {
        #expect(
            edit("notes", with: #"sh -c 'printf "\377\376" > "$1"' sh"#)
                == .unchanged("The edited notes are not valid UTF-8 text; the notes are unchanged."))
    }

    @Test func theEditorIsVisualElseEditorElseVi() {
        #expect(ExternalEditor.command(environment: ["VISUAL": "nano", "EDITOR": "ed"]) == "nano")
        #expect(ExternalEditor.command(environment: ["VISUAL": " ", "EDITOR": "ed"]) == "ed")
        #expect(ExternalEditor.command(environment: [:]) == "vi")
    }
}

extension ExternalEditor.Outcome {
    func isUnchanged(containing text: String) -> Bool {
        if case .unchanged(let message) = self { message.contains(text) } else { false }
    }
}
