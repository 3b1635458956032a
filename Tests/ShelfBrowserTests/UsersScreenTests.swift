import Foundation
import ShelfPresentation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTerminal
import ShelfTerminalTesting
import Testing

@testable import ShelfBrowser

@MainActor
@Suite("Users screens")
struct UsersScreenTests {
    @Test func usersViewAddsRemovesAndShowsAUsersItems() async throws {
        let (store, users) = try await makeStore(items: 6)
        let screen = browser(store, width: 100, height: 24)
        #expect(await screen.waitUntil { $0.contains("Item 6") })
        screen.send(.character("U"))
        #expect(await screen.waitUntil { $0.contains("Grace Hopper") && $0.contains("Users") })
        let rows = screen.lines.filter { $0.contains("@example.com") }.map {
            let inside = $0.drop { $0 != "│" }.dropFirst().prefix { $0 != "│" }
            return "│" + inside.split(separator: " ").joined(separator: " ") + "│"
        }
        #expect(
            rows == [
                "│Ada Lovelace ada@example.com 2 items 2 open│",
                "│Alan Turing alan@example.com 2 items 1 open│",
                "│Grace Hopper grace@example.com 2 items 2 open│",
            ])

        // Add a user: a form over the list; a bad email is refused inline, nothing lost.
        screen.send(.character("a"))
        #expect(await screen.waitUntil { $0.contains("Add user") })
        screen.type("Barbara Liskov")
        screen.send(KeyEvent(.tab))
        screen.type("ADA@example.com")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { $0.contains("Another user already has the email ADA@example.com") })
        #expect(screen.text.contains("Barbara Liskov"))
        for _ in 0..<15 { screen.send(KeyEvent(.backspace)) }
        screen.type("barbara@example.com")
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { !$0.contains("Add user") && $0.contains("barbara@example.com") })

        // The new user is selected: remove them, after a question naming their items.
        screen.send(.character("d"))
        #expect(
            await screen.waitUntil {
                $0.contains("Remove Barbara Liskov (barbara@example.com)? They own no items.")
            })
        screen.send(.character("y"))
        #expect(await screen.waitUntil { !$0.contains("barbara@example.com") })
        #expect(try await store.users.users().count == 3)

        // Enter shows the selected user's items: the list is filtered by owner.
        screen.send(.character("G"))  // Grace Hopper, last by name
        screen.send(KeyEvent(.enter))
        #expect(await screen.waitUntil { !$0.contains("Users") && $0.contains("2 items · Grace Hopper") })
        let owned = try await store.items.items(matching: ItemQuery(owner: users[1].id)).map(\.title)
        for title in owned { #expect(screen.text.contains(title)) }
        #expect(await screen.waitUntil { !$0.contains("Item 6") })  // the detail follows the selection
        screen.send(KeyEvent(.escape))  // clears the filter as it clears any filter
        #expect(await screen.waitUntil { $0.contains("6 items") })
        screen.close()
    }

    @Test func qAndEscGoBackFromTheUsersView() async throws {
        let (store, _) = try await makeStore(items: 1)
        let screen = browser(store, width: 100, height: 20)
        #expect(await screen.waitUntil { $0.contains("Item 1") })
        screen.send(.character("U"))
        #expect(await screen.waitUntil { $0.contains("Alan Turing") })
        screen.send(.character("q"))
        #expect(!screen.text.contains("alan@example.com"))
        #expect(!screen.didQuit)
        screen.send(.character("U"))
        #expect(await screen.waitUntil { $0.contains("Alan Turing") })
        screen.send(KeyEvent(.escape))
        #expect(!screen.text.contains("alan@example.com"))
        screen.close()
    }

    /// Hostile round 11: the user form at 40×8 had no hint line (a stack cut from the bottom);
    /// the browser supports 40×8, and the form keeps its foot there, the focused field in sight.
    @Test func theUserFormKeepsItsHintLineAt40By8() async throws {
        let (store, _) = try await makeStore(items: 1)
        let screen = browser(store, width: 40, height: 8)
        #expect(await screen.waitUntil { $0.contains("Item 1") })
        screen.send(.character("U"))
        #expect(await screen.waitUntil { $0.contains("Alan Turing") })
        screen.send(.character("a"))
        #expect(await screen.waitUntil { $0.contains("Name") && $0.contains("Esc cancel") }, "\(screen.text)")
        #expect(screen.text.contains("Enter save"), "\(screen.text)")
        screen.send(KeyEvent(.tab))
        #expect(await screen.waitUntil { $0.contains("Email") && $0.contains("Esc cancel") }, "\(screen.text)")
        screen.close()
    }

    @Test func anEmptyDatabaseNamesItsDemoCommandInTheUsersView() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("empty shelf.sqlite").path
        let store = try Store(path: path)
        let screen = browser(store, width: 160, height: 12)
        #expect(await screen.waitUntil { $0.contains("No items yet.") })
        screen.send(.character("U"))
        #expect(await screen.waitUntil { $0.contains("No users yet.") })
        #expect(screen.text.contains("No users yet. Press a to add one, or fill a demo: shelf demo --db"))
        #expect(screen.text.contains("'\(path)'."))
        screen.close()
    }
}
