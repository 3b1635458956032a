import Foundation
import ShelfTestSupport
import Testing

/// A saved view of one user's items outlives the user (its owner is cleared, and it shows
/// everyone's items): removing the user says so (issue 21: it happened silently).
@Suite("Saved views whose owner goes (end to end)")
struct SavedViewOwnerTests {
    @Test func removingAUserNamesTheViewsThatLoseTheirOwner() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        for (name, email) in [("Ann", "ann@example.com"), ("Bob", "bob@example.com")] {
            #expect(try await shelf.run(["users", "add", "--db", db, "--name", name, "--email", email]).status == 0)
        }
        for (view, user) in [("Ann's", "ann@example.com"), ("Bob's", "bob@example.com")] {
            let saved = try await shelf.run(["views", "save", "--db", db, view, "--query", "x", "--user", user])
            #expect(saved.status == 0, "\(saved.error)")
        }
        let removed = try await shelf.run(["users", "remove", "--db", db, "ann@example.com"])
        #expect(removed.status == 0, "\(removed.error)")
        #expect(
            removed.error.contains(
                "the saved view “Ann's” showed only ann@example.com's items and now shows everyone's"),
            "\(removed.error)")
        #expect(!removed.error.contains("Bob's"))
        #expect(removed.error.contains("`shelf views delete --db \(db) NAME`"), "\(removed.error)")

        // A user who owns no view: nothing to say.
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Cy", "--email", "cy@example.com"]).status == 0)
        let quiet = try await shelf.run(["users", "remove", "--db", db, "cy@example.com"])
        #expect(quiet.status == 0)
        #expect(quiet.error.isEmpty, "\(quiet.error)")
    }

    /// A users import with `--mode replace` removes the users the file lacks: the views of
    /// their items are named, each with its owner (issue 21: they widened without a word).
    @Test func aReplaceOfUsersNamesTheViewsThatLoseTheirOwner() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        for (name, email) in [("Ann", "ann@example.com"), ("Bob", "bob@example.com"), ("Cy", "cy@example.com")] {
            #expect(try await shelf.run(["users", "add", "--db", db, "--name", name, "--email", email]).status == 0)
        }
        for (view, user) in [("Ann's", "ann@example.com"), ("Bob's", "bob@example.com"), ("Cy's", "cy@example.com")] {
            let saved = try await shelf.run(["views", "save", "--db", db, view, "--query", "x", "--user", user])
            #expect(saved.status == 0, "\(saved.error)")
        }
        let keepCy = "name,email\nCy,cy@example.com\n"
        // A dry run names the same views, as what would happen (F3 of the hostile tester: it
        // said nothing), and changes nothing.
        let dry = try await shelf.run(
            ["import", "users", "-", "--db", db, "--format", "csv", "--mode", "replace", "--yes", "--dry-run"],
            input: keepCy)
        #expect(dry.status == 0, "\(dry.error)")
        #expect(
            dry.error.contains(
                "the saved views “Ann's” (ann@example.com's items) and “Bob's” (bob@example.com's items) show only "
                    + "one user's items and would show everyone's (their owners would be removed)"),
            "\(dry.error)")
        #expect(!dry.error.contains("Cy's"))
        let views = try await shelf.run(["views", "list", "--db", db])
        #expect(views.output.contains("ann@example.com"), "\(views.output)")
        let replaced = try await shelf.run(
            ["import", "users", "-", "--db", db, "--format", "csv", "--mode", "replace", "--yes"], input: keepCy)
        #expect(replaced.status == 0, "\(replaced.error)")
        #expect(
            replaced.error.contains(
                "the saved views “Ann's” (ann@example.com's items) and “Bob's” (bob@example.com's items) showed only "
                    + "one user's items and now show everyone's (their owners were removed)"),
            "\(replaced.error)")
        #expect(!replaced.error.contains("Cy's"))
    }
}
