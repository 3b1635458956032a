import Foundation
import ShelfPresentation
import ShelfStore
import ShelfTerminal
import ShelfTerminalTesting
import Testing

@testable import ShelfBrowser

@MainActor
@Suite("Editor screens")
struct EditorScreenTests {
    /// Hostile round 8: at 80×10 the editor was a stack cut from the bottom: no hint line, and
    /// the notes field out of sight. At every size down to the smallest the browser supports
    /// (40×8), the hint line stays and Tab brings each field into sight, its error with it.
    @Test(arguments: [(80, 10), (40, 8)])
    func theEditorScrollsItsFieldsAndKeepsItsHintsOnASmallScreen(width: Int, height: Int) async throws {
        let (store, _) = try await makeStore(items: 1)
        let screen = browser(store, width: width, height: height)
        #expect(await screen.waitUntil { $0.contains("Item 1") })
        screen.send(.character("e"))
        #expect(await screen.waitUntil { $0.contains("Edit item") }, "\(screen.text)")
        func hintShown() -> Bool { screen.lines.contains { $0.contains("Esc cancel") } }
        #expect(hintShown(), "\(screen.text)")
        #expect(screen.text.contains("Title     Item 1"), "\(screen.text)")
        // An error shows under its field, with the hints.
        for _ in 0..<6 { screen.send(KeyEvent(.backspace)) }
        screen.send(.control("s"))
        #expect(await screen.waitUntil { $0.contains("A title is required.") }, "\(screen.text)")
        #expect(hintShown(), "\(screen.text)")
        screen.type("Renamed")
        for field in ["Status", "Priority", "Owner", "Notes"] {
            screen.send(KeyEvent(.tab))
            #expect(screen.lines.contains { $0.contains("│\(field) ") }, "\(field): \(screen.text)")
            #expect(hintShown() || screen.lines.contains { $0.contains("Ctrl-S save") }, "\(screen.text)")
        }
        screen.type("typed into the notes")
        #expect(screen.text.contains("typed into the notes"), "\(screen.text)")
        // Scrolled (at 40×8), a mark says fields are out of sight above.
        if height == 8 { #expect(screen.lines.contains { $0.hasSuffix("↑│") }, "\(screen.text)") }
        // Back up to the title: it comes back into sight.
        for _ in 0..<4 { screen.send(KeyEvent(.tab, modifiers: .shift)) }
        #expect(screen.text.contains("Title     Renamed"), "\(screen.text)")
        screen.send(.control("s"))
        #expect(await screen.waitUntil { !$0.contains("Edit item") }, "\(screen.text)")
        let saved = try await store.items.items(matching: ItemQuery(text: "Renamed"))
        #expect(saved.first?.notes == "typed into the notes")
    }

    @Test func newItemValidatesInlineThenSaves() async throws {
        let (store, _) = try await makeStore(items: 1)
        let screen = browser(store, width: 80, height: 20)
        #expect(await screen.waitUntil { $0.contains("Item 1") })
        screen.send(.character("n"))
        #expect(await screen.waitUntil { $0.contains("New item") })
        screen.send(KeyEvent(.tab))
        screen.send(KeyEvent(.tab))
        screen.type("7")  // priority "07"
        screen.send(KeyEvent(.enter))
        let dialog = screen.lines.map { String($0.dropFirst(4).prefix(72)) }.joined(separator: "\n")
        #expect(
            dialog == """
                ┌─ New item ───────────────────────────────────────────────────────────┐
                │Title     what needs doing                                            │
                │          A title is required.                                        │
                │Status    ‹ open ›                                                    │
                │                                                                      │
                │Priority  07                                                          │
                │          Priority is a number from 0 (none) to 3 (high).             │
                │Owner     grace@example.com                                           │
                │                                                                      │
                │Notes     optional; Enter starts a new line                           │
                │                                                                      │
                │                                                                      │
                │                                                                      │
                │                                                                      │
                │                                                                      │
                │                                                                      │
                │                                                                      │
                │                                                                      │
                │Tab next field · Enter save · Ctrl-O notes in $EDITOR · Esc cancel    │
                └──────────────────────────────────────────────────────────────────────┘
                """)
        screen.send(KeyEvent(.backspace))
        screen.send(KeyEvent(.tab, modifiers: .shift))
        screen.send(KeyEvent(.tab, modifiers: .shift))
        screen.type("Buy milk")
        #expect(!screen.text.contains("A title is required."))
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { !$0.contains("New item") && $0.contains("Buy milk") })
        let saved = try await store.items.items(matching: ItemQuery(text: "milk"))
        #expect(saved.map(\.title) == ["Buy milk"])
        #expect(saved.first?.priority == 0)
    }

    /// Keys typed right after `e` or `n`, before the editor has read its item and shown, are
    /// the editor's: they never reach the list (where `d` `y` would delete the item and Space
    /// would mark it done).
    @Test func keysTypedWhileTheEditorOpensGoToTheEditor() async throws {
        let (store, _) = try await makeStore(items: 2)
        let screen = browser(store, width: 80, height: 20)
        #expect(await screen.waitUntil { $0.contains("Item 2") })
        screen.send(.character("e"))
        screen.type("dy ")
        #expect(await screen.waitUntil { $0.contains("Item 2dy ") }, "\(screen.text)")
        #expect(try await store.items.count(matching: ItemQuery()) == 2, "nothing was deleted")
        let item = try #require(try await store.items.items(matching: ItemQuery(), limit: 1).first)
        #expect(item.status == .open && item.version == 1, "nothing was marked done")
        screen.send(KeyEvent(.escape))

        screen.send(.character("n"))
        screen.type("Typed ahead")
        #expect(await screen.waitUntil { $0.contains("New item") && $0.contains("Typed ahead") }, "\(screen.text)")
        screen.close()
    }

    @Test func escCancelsWithoutSaving() async throws {
        let (store, _) = try await makeStore(items: 1)
        let screen = browser(store, width: 80, height: 20)
        #expect(await screen.waitUntil { $0.contains("Item 1") })
        screen.send(.character("n"))
        #expect(await screen.waitUntil { $0.contains("New item") })
        screen.type("Never saved")
        screen.send(KeyEvent(.escape))
        #expect(!screen.text.contains("New item"))
        #expect(try await store.items.count(matching: ItemQuery()) == 1)
    }

    @Test func aConcurrentEditShowsTheConflictPrompt() async throws {
        let (store, _) = try await makeStore(items: 1)
        let screen = browser(store, width: 80, height: 20)
        #expect(await screen.waitUntil { $0.contains("Item 1") })
        screen.send(.character("e"))
        #expect(await screen.waitUntil { $0.contains("Edit item #1") })
        screen.send(.control("u"))
        screen.type("Mine")
        var theirs = try #require(try await store.items.item(id: Item.ID(1)))
        theirs.title = "Theirs"
        _ = try await store.items.update(theirs)
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("Someone else saved") })
        let dialog = screen.lines.map { String($0.dropFirst(4).prefix(72)) }.joined(separator: "\n")
        #expect(
            dialog == """
                ┌─ Edit item #1 ───────────────────────────────────────────────────────┐
                │Title     Mine                                                        │
                │                                                                      │
                │Status    ‹ open ›                                                    │
                │                                                                      │
                │Priority  1                                                           │
                │                                                                      │
                │Owner     grace@example.com                                           │
                │                                                                      │
                │Notes     optional; Enter starts a new line                           │
                │                                                                      │
                │                                                                      │
                │                                                                      │
                │                                                                      │
                │                                                                      │
                │Someone else saved this item meanwhile (their title: “Theirs”).       │
                │                                                                      │
                │                                                                      │
                │r reload theirs (drops your edits) · o overwrite theirs · Esc cancel  │
                └──────────────────────────────────────────────────────────────────────┘
                """)
        screen.send(.character("o"))
        #expect(await screen.waitUntil { !$0.contains("Edit item") })
        #expect(try await store.items.item(id: Item.ID(1))?.title == "Mine")
    }

    @Test func theOwnerFieldCompletesFromTheUsers() async throws {
        let (store, users) = try await makeStore(items: 1)
        let screen = browser(store, width: 80, height: 24)
        #expect(await screen.waitUntil { $0.contains("Item 1") })
        screen.send(.character("n"))
        #expect(await screen.waitUntil { $0.contains("New item") })
        screen.type("Completed owner")
        for _ in 0..<3 { screen.send(KeyEvent(.tab)) }
        screen.send(.control("u"))
        screen.type("a")
        // Emails first: ada@, alan@; then names: Ada Lovelace is already listed, Alan too.
        #expect(await screen.waitUntil { $0.contains("Alan Turing <alan@example.com>") })
        // The popup hangs under the owner field, over the notes.
        let popup = screen.lines.compactMap { line in
            line.split(separator: "│").first { $0.contains("@example.com>") }?.trimmingCharacters(in: .whitespaces)
        }
        #expect(popup == ["Ada Lovelace <ada@example.com>", "Alan Turing <alan@example.com>"])
        #expect(screen.lines[10].contains("│Notes    │Ada Lovelace <ada@example.com>"))
        #expect(screen.text.contains("↑/↓ choose · Tab or Enter take"))
        screen.send(KeyEvent(.down))
        screen.send(KeyEvent(.enter))  // takes Alan, does not save
        #expect(screen.text.contains("Owner     alan@example.com"))
        #expect(!screen.text.contains("Ada Lovelace <ada@example.com>"))
        #expect(screen.text.contains("New item"))
        screen.send(.control("s"))
        #expect(await screen.waitUntil { !$0.contains("New item") })
        let saved = try await store.items.items(matching: ItemQuery(text: "completed"))
        #expect(saved.map(\.userID) == [users[2].id])
    }

    @Test func statusAndNotesOfManyLines() async throws {
        let (store, _) = try await makeStore(items: 1)
        let screen = browser(store, width: 80, height: 24)
        #expect(await screen.waitUntil { $0.contains("Item 1") })
        screen.send(.character("e"))
        #expect(await screen.waitUntil { $0.contains("Edit item #1") })
        screen.send(KeyEvent(.tab))
        #expect(screen.text.contains("‹ open ›  Space or ←/→ to switch"))
        screen.send(.character(" "))
        #expect(screen.text.contains("‹ done ›"))
        screen.send(KeyEvent(.tab, modifiers: .shift))
        screen.send(KeyEvent(.tab, modifiers: .shift))  // wraps to the notes
        // Whole, its way out included (hostile round 13: "… · Tab next · E…").
        #expect(screen.text.contains("Enter new line · Ctrl-S save · Ctrl-O $EDITOR · Tab next · Esc cancel"))
        screen.type("first line")
        screen.send(KeyEvent(.enter))
        screen.type("second: \u{1B}]0;owned\u{7} 🇩🇪 e\u{301}")
        #expect(screen.text.contains("Edit item #1"))  // Enter in the notes did not save
        #expect(screen.text.contains("Notes     first line"))
        #expect(screen.text.contains("          second: ␛]0;owned␇ 🇩🇪 é"))
        screen.send(.control("s"))
        #expect(await screen.waitUntil { !$0.contains("Edit item #1") })
        let item = try #require(try await store.items.item(id: Item.ID(1)))
        #expect(item.status == .done)
        #expect(item.notes == "first line\nsecond: \u{1B}]0;owned\u{7} 🇩🇪 e\u{301}")
    }

    @Test func anUnknownOwnerIsAddedOnTheSpot() async throws {
        let (store, _) = try await makeStore(items: 1)
        let screen = browser(store, width: 80, height: 24)
        #expect(await screen.waitUntil { $0.contains("Item 1") })
        screen.send(.character("n"))
        #expect(await screen.waitUntil { $0.contains("New item") })
        screen.type("Owned by a newcomer")
        for _ in 0..<3 { screen.send(KeyEvent(.tab)) }
        screen.send(.control("u"))
        screen.type("kat.johnson@example.com")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("No user has the email kat.johnson@example.com. Add them") })
        #expect(screen.text.contains("Name      Kat Johnson"))
        #expect(screen.text.contains("Enter add the user and save · Esc back to the item"))
        // Esc goes back to the form with everything kept; saving asks again.
        screen.send(KeyEvent(.escape))
        #expect(screen.text.contains("Owned by a newcomer") && screen.text.contains("kat.johnson@example.com"))
        #expect(!screen.text.contains("Name      Kat Johnson"))
        screen.send(.control("s"))
        #expect(await screen.waitUntil { $0.contains("Name      Kat Johnson") })
        screen.send(KeyEvent(.backspace, modifiers: .control))
        screen.type("Katherine")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { !$0.contains("New item") && $0.contains("Owned by a newcomer") })
        let owner = try #require(try await store.users.user(email: "kat.johnson@example.com"))
        #expect(owner.name == "Kat Katherine")
        #expect(
            try await store.items.items(matching: ItemQuery(owner: owner.id)).map(\.title) == ["Owned by a newcomer"])
    }
}
