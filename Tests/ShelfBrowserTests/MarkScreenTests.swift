import Foundation
import ShelfPresentation
import ShelfStore
import ShelfTerminal
import ShelfTerminalTesting
import Synchronization
import Testing

@testable import ShelfBrowser

/// What the browser wrote to the terminal for copies.
final class TerminalRecorder: Sendable {
    private let bytes = Mutex<[UInt8]>([])

    var written: [UInt8] { bytes.withLock { $0 } }

    func write(_ new: [UInt8]) { bytes.withLock { $0 += new } }
}

@MainActor
@Suite("Browser marks, bulk actions and undo")
struct MarkScreenTests {
    func markedBrowser(_ store: Store, clipboard: Clipboard? = nil, width: Int = 100) -> HeadlessScreen {
        let controller = BrowserController(viewModel: BrowserViewModel(store: store, now: clock))
        if let clipboard { controller.clipboard = clipboard }
        return HeadlessScreen(rootController: controller, size: Size(width: width, height: 12))
    }

    @Test func markThreeDeleteConfirmAndUndo() async throws {
        let (store, _) = try await makeStore(items: 5)
        let before = try await store.items.items(matching: ItemQuery())
        let screen = markedBrowser(store)
        #expect(await screen.waitUntil { $0.contains("Item 5") })
        #expect(!screen.lines[1].hasPrefix("  ") || !screen.text.contains("*"), "no mark column without marks")
        screen.send(.character("m"))
        #expect(await screen.waitUntil { $0.contains("1 marked · ") })
        #expect(screen.lines.contains { $0.hasPrefix("*") && $0.contains("Item 5") })
        screen.send(.character("m"))
        screen.send(.character("m"))
        #expect(await screen.waitUntil { $0.contains("3 marked · ") })
        // Marks survive a search that hides them, and its clearing.
        screen.send(.character("/"))
        screen.type("Item 1")
        #expect(await screen.waitUntil { $0.contains("1 item") && $0.contains("3 marked") })
        screen.send(KeyEvent(.escape))
        #expect(await screen.waitUntil { $0.contains("5 items") && $0.contains("3 marked") })

        screen.send(.character("d"))
        // The marks are checked against the store before the question shows.
        #expect(await screen.waitUntil { $0.contains("┌─ Delete items") })
        #expect(screen.text.contains("Delete 3 items, all marked? u undoes it."))
        screen.send(.character("n"))
        #expect(try await store.items.count(matching: ItemQuery()) == 5)
        screen.send(.character("d"))
        screen.send(.character("y"))
        #expect(await screen.waitUntil { $0.contains("deleted 3 items") && $0.contains("2 items ·") })
        #expect(!screen.text.contains("marked ·"), "deleted items lose their marks")

        screen.send(.character("u"))
        #expect(await screen.waitUntil { $0.contains("undid: delete 3 items") && $0.contains("5 items ·") })
        #expect(try await store.items.items(matching: ItemQuery()) == before, "back with their IDs and notes")
        screen.send(.control("r"))
        #expect(await screen.waitUntil { $0.contains("redid: delete 3 items") && $0.contains("2 items ·") })
    }

    @Test func aMarkGoesWhenItsItemIsDeletedElsewhere() async throws {
        let (store, _) = try await makeStore(items: 4)
        let screen = markedBrowser(store)
        #expect(await screen.waitUntil { $0.contains("Item 4") })
        screen.send(.character("m"))
        screen.send(.character("m"))
        #expect(await screen.waitUntil { $0.contains("2 marked · ") })
        let first = try #require(try await store.items.items(matching: ItemQuery(), limit: 1).first)
        try await store.items.delete(id: first.id)
        #expect(await screen.waitUntil { $0.contains("1 marked · ") && $0.contains("3 items") })
    }

    /// Marked items deleted by another process far from the rows held lose their marks, and
    /// the prompts count only marked items that exist (they said "1,981" of 1,785).
    @Test func marksOfItemsDeletedElsewhereGoAndPromptsCountWhatExists() async throws {
        let (store, users) = try await makeStore(items: 600)
        let controller = BrowserController(viewModel: BrowserViewModel(store: store, windowSize: 40, now: clock))
        let screen = HeadlessScreen(rootController: controller, size: Size(width: 100, height: 12))
        #expect(await screen.waitUntil { $0.contains("Item 600") })
        screen.send(.character("M"))
        #expect(await screen.waitUntil { $0.contains("600 marked · ") })
        // Another program deletes one user's items (every third: most of them are far from
        // the 40 rows the list holds).
        let theirs = try await store.items.items(matching: ItemQuery(owner: users[0].id))
        #expect(theirs.count == 200)
        _ = try await store.items.deleteItems(ids: theirs.map(\.id))
        #expect(await screen.waitUntil { $0.contains("400 marked · ") && $0.contains("400 items") }, "\(screen.text)")
        // And ten more, just before the key: the prompt counts what exists.
        let more = try await store.items.items(matching: ItemQuery(), limit: 10).map(\.id)
        _ = try await store.items.deleteItems(ids: more)
        screen.send(.character("d"))
        #expect(await screen.waitUntil { $0.contains("Delete 390 items, all marked?") }, "\(screen.text)")
        screen.send(.character("n"))
        screen.send(.character("p"))
        #expect(await screen.waitUntil { $0.contains("┌─ Priority of 390 items") }, "\(screen.text)")
    }

    @Test func anEditSavedInTheEditorAndSpaceAreUndone() async throws {
        let (store, _) = try await makeStore(items: 2)
        let screen = markedBrowser(store, width: 80)
        #expect(await screen.waitUntil { $0.contains("Item 2") })
        let item = try #require(try await store.items.items(matching: ItemQuery(), limit: 1).first)
        screen.send(.character("e"))
        #expect(await screen.waitUntil { $0.contains("Edit item") })
        screen.type(" edited")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { !$0.contains("Edit item") && $0.contains("Item 2 edited") })
        screen.send(.character(" "))
        #expect(await screen.waitUntil { $0.contains("marked 1 item done") })
        screen.send(.character("u"))
        #expect(await screen.waitUntil { $0.contains("undid: mark 1 item done") })
        screen.send(.character("u"))
        #expect(await screen.waitUntil { $0.contains("undid: edit item \(item.id.rawValue)") }, "\(screen.text)")
        let back = try #require(try await store.items.item(id: item.id))
        #expect(back.title == item.title && back.status == item.status)
        screen.send(.character("u"))
        #expect(await screen.waitUntil { $0.contains("nothing to undo") })
    }

    @Test func markAllThenSpaceMarksEveryMatchDone() async throws {
        let (store, _) = try await makeStore(items: 12)
        let screen = markedBrowser(store)
        #expect(await screen.waitUntil { $0.contains("Item 12") })
        screen.send(.character("M"))
        #expect(await screen.waitUntil { $0.contains("12 marked") })
        screen.send(.character(" "))
        #expect(await screen.waitUntil { $0.contains("marked 10 items done") })
        #expect(try await store.items.count(matching: ItemQuery(status: .open)) == 0)
        screen.send(.character(" "))
        #expect(await screen.waitUntil { $0.contains("marked 12 items open") })
        screen.send(.character("M"))
        #expect(await screen.waitUntil { $0.contains("marks cleared") })
        #expect(!screen.text.contains("marked ·"))
    }

    @Test func priorityPromptChecksTheNumberAndSetsEveryMarkedItem() async throws {
        let (store, _) = try await makeStore(items: 3)
        let screen = markedBrowser(store)
        #expect(await screen.waitUntil { $0.contains("Item 3") })
        screen.send(.character("m"))
        screen.send(.character("m"))
        screen.send(.character("p"))
        #expect(await screen.waitUntil { $0.contains("┌─ Priority of 2 items") })
        screen.type("7")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("Priority is a number from 0 (none) to 3 (high).") })
        screen.send(KeyEvent(.backspace))
        screen.type("0")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("set priority 0 on 2 items") }, "\(screen.text)")
        let items = try await store.items.items(matching: ItemQuery())
        #expect(items.map(\.priority) == [0, 0, 1])
        // The prompt is gone and the list takes keys again (it stayed open, taking only Esc).
        #expect(await screen.waitUntil { !$0.contains("┌─ Priority") }, "\(screen.text)")
        screen.send(.character("?"))
        #expect(
            await screen.waitUntil { $0.contains("Keys") || $0.contains("help") && $0.contains("─") }, "\(screen.text)")
    }

    @Test func ownerPromptSaysWhenNoUserHasTheEmail() async throws {
        let (store, users) = try await makeStore(items: 2)
        let screen = markedBrowser(store)
        #expect(await screen.waitUntil { $0.contains("Item 2") })
        screen.send(.character("o"))
        #expect(screen.text.contains("┌─ Owner of 1 item"))
        screen.type("nobody@example.com")
        screen.send(KeyEvent(.enter))
        #expect(
            await screen.waitUntil { $0.contains("No user has the email nobody@example.com") }, "\(screen.text)")
        screen.send(KeyEvent(.escape))
        #expect(!screen.text.contains("┌─ Owner"))
        screen.send(.character("o"))
        screen.type(users[0].email)
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("gave 1 item to Ada Lovelace") })
        #expect(await screen.waitUntil { !$0.contains("┌─ Owner") }, "the prompt closes: \(screen.text)")
        let selected = try await store.items.items(matching: ItemQuery(), limit: 1)
        #expect(selected.first?.userID == users[0].id)
    }

    @Test func ownerPromptCompletesNamesAndEmailsAsTheEditorDoes() async throws {
        let (store, users) = try await makeStore(items: 2)
        let screen = markedBrowser(store)
        #expect(await screen.waitUntil { $0.contains("Item 2") })
        screen.send(.character("o"))
        screen.type("gra")
        #expect(await screen.waitUntil { $0.contains("Grace Hopper <\(users[1].email)>") }, "\(screen.text)")
        screen.send(KeyEvent(.tab))
        #expect(await screen.waitUntil { $0.contains(users[1].email) && !$0.contains("Grace Hopper <") })
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("gave 1 item to Grace Hopper") }, "\(screen.text)")
    }

    /// Hostile round 8: the owner prompt's suggestions covered its foot (nothing said which
    /// keys choose, take or close the list), and a long name pushed the email out of sight.
    /// Each user's email shows beside the name, cut to fit, sanitized; the foot stays.
    @Test func ownerPromptSuggestionsShowEmailsAndAFoot() async throws {
        let (store, _) = try await makeStore(items: 2)
        let long = "Gracious Hopperton-Wellington of the Very Long Name Society \u{1B}[31mred"
        _ = try await store.users.insert(
            NewUser(name: long, email: "gracious.hopperton@example-company.example.com", createdAt: start))
        let controller = BrowserController(viewModel: BrowserViewModel(store: store, now: clock))
        let screen = HeadlessScreen(rootController: controller, size: Size(width: 80, height: 20))
        #expect(await screen.waitUntil { $0.contains("Item 2") })
        screen.send(.character("o"))
        #expect(await screen.waitUntil { $0.contains("Enter: apply") }, "\(screen.text)")
        screen.type("gra")
        #expect(await screen.waitUntil { $0.contains("Tab or Enter take") }, "\(screen.text)")
        let text = screen.text
        #expect(text.contains("Grace Hopper <grace@example.com>"), "\(text)")
        #expect(text.contains("<gracious.hopperton@example-company.example.com>"), "\(text)")
        #expect(text.contains("Gracious Hopperton-W"), "\(text)")
        #expect(text.contains("↑/↓ choose") && text.contains("Esc close the list"), "\(text)")
        #expect(!text.contains("\u{1B}"), "no escape byte reaches the screen: \(text.debugDescription)")
        // The popup ends above the foot, in the dialog's box.
        let popupBottom = try #require(screen.lines.firstIndex { $0.contains("└──") })
        let foot = try #require(screen.lines.firstIndex { $0.contains("Tab or Enter take") })
        #expect(popupBottom < foot, "\(text)")
        screen.send(KeyEvent(.escape))
        #expect(await screen.waitUntil { $0.contains("Enter: apply") && !$0.contains("Tab or Enter take") })
        screen.send(KeyEvent(.escape))
        #expect(await screen.waitUntil { !$0.contains("┌─ Owner") }, "\(screen.text)")
        // At the smallest size the browser supports, the foot's keys to take and close stay
        // whole, and a suggestion shows.
        let small = HeadlessScreen(
            rootController: BrowserController(viewModel: BrowserViewModel(store: store, now: clock)),
            size: Size(width: 40, height: 8))
        #expect(await small.waitUntil { $0.contains("Item 2") })
        small.send(.character("o"))
        small.type("gra")
        #expect(await small.waitUntil { $0.contains("Tab or Enter take · Esc close the list") }, "\(small.text)")
        #expect(small.text.contains("Grace Hopper <grace@example.com>"), "\(small.text)")
    }

    @Test func fitKeepsTheDetailAndCutsTheName() {
        #expect(SuggestionPopup.fit("Ada", detail: "ada@x.io", width: 30) == "Ada <ada@x.io>")
        let cut = SuggestionPopup.fit(String(repeating: "n", count: 40), detail: "long@example.com", width: 30)
        #expect(cut == String(repeating: "n", count: 10) + "… <long@example.com>", "\(cut)")
        let both = SuggestionPopup.fit(
            String(repeating: "n", count: 40), detail: String(repeating: "e", count: 40), width: 30)
        #expect(both.hasPrefix("nnnnnnnnn… <") && both.hasSuffix("…>") && DisplayWidth.of(both) == 30, "\(both)")
        #expect(SuggestionPopup.fit("a\u{1B}[31m", detail: "x\u{7}", width: 30) == "a␛[31m <x␇>")
    }

    @Test func yCopiesTheSelectedItemThroughTheTerminal() async throws {
        let (store, _) = try await makeStore(items: 2)
        let recorder = TerminalRecorder()
        let clipboard = Clipboard(environment: ["TERM": "xterm-256color"]) { recorder.write($0) }
        let screen = markedBrowser(store, clipboard: clipboard)
        #expect(await screen.waitUntil { $0.contains("Item 2") })
        let id = try #require(try await store.items.items(matching: ItemQuery(), limit: 1).first?.id)
        screen.send(.character("y"))
        #expect(await screen.waitUntil { $0.contains("copied 1 item to the clipboard") })
        let expected = Clipboard.sequence(for: "#\(id.rawValue) [open] Item 2 — Alan Turing\n")
        #expect(recorder.written == expected)
    }

    @Test func yWritesAFileWhenTheTerminalCannotTakeIt() async throws {
        let (store, _) = try await makeStore(items: 2)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = TerminalRecorder()
        let clipboard = Clipboard(environment: ["TERM": "linux", "XDG_RUNTIME_DIR": folder.path]) { recorder.write($0) }
        let screen = markedBrowser(store, clipboard: clipboard, width: 200)
        #expect(await screen.waitUntil { $0.contains("Item 2") })
        screen.send(.character("Y"))
        let path = folder.appendingPathComponent("shelf-clipboard.json").path
        #expect(await screen.waitUntil { $0.contains("copied 1 item as JSON to \(path)") })
        #expect(recorder.written.isEmpty)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("[\n{\"id\":") && text.contains("\"title\":\"Item 2\""))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// `M` then `y` over more text than OSC 52 takes: streamed to the file a page at a time
    /// (every marked item once, the exception left out), nothing sent to the terminal.
    @Test func yOfMarksOfAQueryStreamsToTheFile() async throws {
        let (store, _) = try await makeStore(items: 12_000)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = TerminalRecorder()
        let clipboard = Clipboard(environment: ["TMUX": "1", "XDG_RUNTIME_DIR": folder.path]) { recorder.write($0) }
        let screen = markedBrowser(store, clipboard: clipboard, width: 200)
        #expect(await screen.waitUntil { $0.contains("Item 12000") })
        screen.send(.character("M"))
        #expect(await screen.waitUntil { $0.contains("12,000 marked") })
        screen.send(.character("m"))  // Item 12000, the first row, is left out
        #expect(await screen.waitUntil { $0.contains("11,999 marked") })
        screen.send(.character("y"))
        let path = folder.appendingPathComponent("shelf-clipboard.txt").path
        #expect(await screen.waitUntil { $0.contains("copied 11,999 items to \(path)") }, "\(screen.text)")
        #expect(recorder.written.isEmpty, "more than OSC 52 takes")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 11_999)
        #expect(Set(lines).count == 11_999)
        #expect(!lines.contains { $0.contains("] Item 12000 —") })
    }
}
