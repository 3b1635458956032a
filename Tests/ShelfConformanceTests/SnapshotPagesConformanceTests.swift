import Foundation
import ShelfReactive
import ShelfStore
import ShelfTestSupport
import Synchronization
import Testing

/// `Store.itemPages`: a whole result a page at a time from one snapshot, on every backend;
/// leaving early or cancelling releases the snapshot; a slow consumer bounds the read.
@Suite("Conformance: snapshot reads in pages")
struct SnapshotPagesConformanceTests {
    /// Every page of `pages`, checking that each is full but the last, which is not empty.
    static func collect(_ pages: SnapshotPages<Item>, pageSize: Int) async throws -> [Item] {
        var all: [[Item]] = []
        for try await page in pages { all.append(page) }
        for (index, page) in all.enumerated() {
            if index < all.count - 1 {
                #expect(page.count == pageSize, "page \(index) of \(all.count)")
            } else {
                #expect((1...pageSize).contains(page.count), "the last page")
            }
        }
        return all.flatMap { $0 }
    }

    @Test(arguments: Backend.available)
    func pagesEqualAPlainListRead(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let items = try await PagingConformanceTests.fill(store)
            let owner = try #require(items.first?.userID)
            let queries = [
                ItemQuery(), ItemQuery(sortField: .title, sortDirection: .ascending),
                ItemQuery(status: .open, sortField: .priority), ItemQuery(text: "apple"),
                ItemQuery(owner: owner, sortField: .updated, sortDirection: .ascending),
                ItemQuery(sortField: .owner, sortDirection: .ascending), ItemQuery(text: "no-such-word"),
            ]
            for query in queries {
                let listed = try await store.items.items(matching: query)
                for pageSize in [1, 7, listed.count, 1000] where pageSize > 0 {
                    let paged = try await Self.collect(
                        store.itemPages(matching: query, pageSize: pageSize), pageSize: pageSize)
                    #expect(paged == listed, "\(query) in pages of \(pageSize)")
                }
            }
            // Full pages only: no empty page after them.
            var pages = 0
            for try await page in store.itemPages(pageSize: items.count) {
                pages += 1
                #expect(page.count == items.count)
            }
            #expect(pages == 1)
            let refused = await #expect(throws: StoreError.self) {
                for try await _ in store.itemPages(pageSize: 0) {}
            }
            #expect(refused?.code == .invalidValue)
        }
    }

    @Test(arguments: Backend.available)
    func aBlockingConsumerTakesEveryPageAndStopsTheReadByThrowing(_ backend: Backend) async throws {
        struct Enough: Error {}
        try await backend.withStore { (store: Store) async throws in
            let items = try await PagingConformanceTests.fill(store)
            let listed = try await store.items.items(matching: ItemQuery())
            let pages = store.itemPages(pageSize: 7)
            // As an export does: on a thread of its own, a page at a time.
            let read = try await BlockingWork.run { _ in
                var seen: [Item] = []
                try pages.forEachPage { seen += $0 }
                return seen
            }
            #expect(read == listed)
            let calls = try await BlockingWork.run { _ in
                var calls = 0
                do {
                    try pages.forEachPage { _ in
                        calls += 1
                        if calls == 2 { throw Enough() }
                    }
                } catch is Enough {}
                return calls
            }
            #expect(calls == 2, "the body's error ends the read")
            // Each read ended, releasing its snapshot, before forEachPage returned.
            #expect(try await store.items.count(matching: ItemQuery()) == items.count)
            await store.close()
            let closed = await #expect(throws: StoreError.self) {
                try await BlockingWork.run { _ in try pages.forEachPage { _ in } }
            }
            #expect(closed?.code == .closed)
        }
    }

    @Test(arguments: Backend.available)
    func aWriterCommittingBetweenPagesChangesNothingTheyYield(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            _ = try await PagingConformanceTests.fill(store)
            let query = ItemQuery(sortField: .title, sortDirection: .ascending)
            let before = try await store.items.items(matching: query)
            var iterator = store.itemPages(matching: query, pageSize: 5).makeAsyncIterator()
            var read = try #require(try await iterator.next())
            // Committed while the read holds its snapshot: every title changes, the last item
            // of the order goes, new items come (first in the order).
            let renamed = try await store.items.update(
                contentsOf: before.map { item in
                    var item = item
                    item.title = "renamed " + item.title
                    return item
                })
            #expect(renamed.count == before.count)
            try await store.items.delete(id: try #require(before.last).id)
            try await store.items.insert(contentsOf: [NewItem(userID: before[0].userID, title: "AAA new")])
            while let page = try await iterator.next() { read += page }
            let unchanged = read == before
            #expect(unchanged, "pages read after the writes: \(read.map(\.title))")
            // The writes did commit: a new read sees them.
            let after = try await Self.collect(store.itemPages(matching: query, pageSize: 5), pageSize: 5)
            #expect(after == (try await store.items.items(matching: query)))
            #expect(after.first?.title == "AAA new" && after.count == before.count)
        }
    }

    @Test(arguments: Backend.available)
    func leavingTheLoopEarlyReleasesTheSnapshot(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            _ = try await PagingConformanceTests.fill(store)
            var pages = 0
            for try await _ in store.itemPages(pageSize: 4) {
                pages += 1
                // The test can tell: the read holds its snapshot now.
                #expect(try await Self.snapshotHeld(store, backend))
                break
            }
            #expect(pages == 1)
            #expect(try await eventually { try await !Self.snapshotHeld(store, backend) })
            // Many reads left early in a row leak nothing (more than the readers or the pool).
            for _ in 0..<12 {
                for try await _ in store.itemPages(pageSize: 4) { break }
            }
            #expect(try await eventually { try await !Self.snapshotHeld(store, backend) })
            #expect(try await store.items.count(matching: ItemQuery()) == 61)
        }
    }

    @Test(arguments: Backend.available)
    func cancellingTheConsumerEndsTheRead(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            _ = try await PagingConformanceTests.fill(store)
            let (firstPage, firstPageRead) = AsyncStream.makeStream(of: Void.self)
            let pages = store.itemPages(pageSize: 4)
            let consumer = Task { () -> (Result<Int, any Error>, released: Bool) in
                var iterator = pages.makeAsyncIterator()
                _ = try await iterator.next()
                firstPageRead.yield()
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                let outcome: Result<Int, any Error>
                do {
                    outcome = .success(try await iterator.next()?.count ?? 0)
                } catch {
                    outcome = .failure(error)
                }
                // Released while the iterator is still held: by the cancellation itself.
                let released = try await eventually { try await !Self.snapshotHeld(store, backend) }
                withExtendedLifetime(iterator) {}
                return (outcome, released)
            }
            for await _ in firstPage { break }
            #expect(try await Self.snapshotHeld(store, backend))
            consumer.cancel()
            let (outcome, released) = try await consumer.value
            #expect(outcome.failure is CancellationError, "\(outcome)")
            #expect(released)
        }
    }

    @Test(arguments: Backend.available)
    func aSlowConsumerHoldsTheReadToOnePageAhead(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            _ = try await PagingConformanceTests.fill(store)
            var iterator = store.itemPages(pageSize: 4).makeAsyncIterator()
            var taken = 0
            // After each page taken, the read goes on until it waits for the consumer: one page
            // ahead, never more, until the last of the 16 pages.
            while try await iterator.next() != nil {
                taken += 1
                #expect(await eventually { iterator.progress.producerWaiting || iterator.progress.finished })
                let progress = iterator.progress
                #expect(progress.received == taken)
                #expect(progress.sent <= taken + 1, "\(progress)")
                if taken < 15 { #expect(!progress.finished && progress.sent == taken + 1, "\(progress)") }
            }
            #expect(taken == 16)
        }
    }

    @Test(arguments: Backend.available)
    func closingTheStoreEndsAReadInProgress(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            _ = try await PagingConformanceTests.fill(store)
            let closed = Flag()
            var closing: Task<Void, Never>?
            do {
                // A consumer that stopped iterating but still holds its iterator.
                var iterator = store.itemPages(pageSize: 4).makeAsyncIterator()
                #expect(try await iterator.next()?.count == 4)
                closing = Task {
                    await store.close()
                    closed.set()
                }
                // `close()` does not wait for the consumer: it ends the read.
                #expect(await eventually { closed.isSet })
                let error = await #expect(throws: StoreError.self) { try await iterator.next() }
                #expect(error?.code == .closed, "\(String(describing: error))")
                #expect(try await iterator.next() == nil)
                withExtendedLifetime(iterator) {}
            }
            // Released only now (had `close()` waited for it, it would end here).
            await closing?.value
            let refused = await #expect(throws: StoreError.self) {
                for try await _ in store.itemPages() {}
            }
            #expect(refused?.code == .closed)
        }
    }

    /// Whether a read transaction of `store` holds a snapshot now, as the engine tells another
    /// program: on SQLite a TRUNCATE checkpoint (the sqlite3 shell does not wait) is busy while
    /// a reader uses the WAL's frames; on PostgreSQL a connection of the database is idle in a
    /// transaction.
    static func snapshotHeld(_ store: Store, _ backend: Backend) async throws -> Bool {
        switch backend {
        case .sqlite:
            let path = try #require(store.path)
            let answer = try await ChildProcess.sqlite3Output(path, "PRAGMA wal_checkpoint(TRUNCATE)")
            return answer.split(separator: "|").first != "0"
        case .postgres:
            // The location shows a password as ***: psql takes it from PGPASSWORD instead.
            let url = try #require(store.shareableLocation).replacingOccurrences(of: ":***@", with: "@")
            let answer = try await output(
                "/usr/bin/psql",
                [
                    url, "-Atc",
                    // In a transaction, idle or running its next page's query (CI at load 32
                    // caught the read 'active' on its page ahead); not this psql's own session.
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                        + "AND xact_start IS NOT NULL AND pid <> pg_backend_pid()",
                ])
            return answer != "0"
        }
    }

    /// What `executable` prints, without its last newline, waited for on a thread of its own.
    static func output(_ executable: String, _ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { () throws -> String in
                        let out = NSTemporaryDirectory() + "snapshot-pages-\(UUID().uuidString)"
                        defer { unlink(out) }
                        // The server's password (CI's server has one), which the store's
                        // location does not show.
                        var environment = ["PATH": "/usr/bin:/bin"]
                        if let password = PostgresServer.url.flatMap({ URLComponents(string: $0)?.password }) {
                            environment["PGPASSWORD"] = password.removingPercentEncoding ?? password
                        }
                        let status = try ChildProcess(
                            executable, arguments, environment: environment, stdout: out
                        ).wait()
                        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
                        guard status == 0 else { throw ShellError(message: "\(executable) exited \(status)") }
                        return text.hasSuffix("\n") ? String(text.dropLast()) : text
                    })
            }
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A flag one task sets and another polls.
final class Flag: Sendable {
    private let value = Atomic(false)

    func set() { value.store(true, ordering: .releasing) }

    var isSet: Bool { value.load(ordering: .acquiring) }
}
