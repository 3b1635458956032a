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
        let dialog = screen.lines[2...16].map { String($0.dropFirst(4).prefix(72)) }.joined(separator: "\n")
        #expect(
            dialog == """
                ┌─ New item ───────────────────────────────────────────────────────────┐
                │Title     what needs doing                                            │
                │          A title is required.                                        │
                │Notes     optional                                                    │
                │                                                                      │
                │Priority  07                                                          │
                │          Priority is a number from 0 (none) to 3 (high).             │
                │Owner     ada@example.com                                             │
                │                                                                      │
                │                                                                      │
                │                                                                      │
                │Tab next field · Enter save · Esc cancel                              │
                │                                                                      │
                │                                                                      │
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
        let dialog = screen.lines[11...14].map { String($0.dropFirst(4).prefix(72)) }.joined(separator: "\n")
        #expect(
            dialog == """
                │Someone else saved this item meanwhile (their title: “Theirs”).       │
                │                                                                      │
                │r reload theirs (drops your edits) · o overwrite with yours · Esc can…│
                │                                                                      │
                """)
        screen.send(.character("o"))
        #expect(await screen.waitUntil { !$0.contains("Edit item") })
        #expect(try await store.items.item(id: Item.ID(1))?.title == "Mine")
    }
}
