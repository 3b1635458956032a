import BaselineSQLite
import Foundation
import ShelfStore

extension StoreSuite {
    /// `store.wal`: 10,000 back-to-back one-row inserts through Shelf, with a live query
    /// open (its readers hold snapshots, as a browser's do), against the raw C API doing the
    /// same inserts with SQLite's default automatic checkpoint. Reports the largest WAL seen
    /// (sampled every 100 writes), the WAL at the end, and writes per second.
    func runWAL(writes: Int = 10_000) async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var shelfLargest: [Double] = []
        var shelfEnd: [Double] = []
        var shelfRate: [Double] = []
        var rawLargest: [Double] = []
        var rawEnd: [Double] = []
        var rawRate: [Double] = []
        for run in 0..<max(1, runs / 2) {
            let store = try await makeStore(in: folder, name: "wal-shelf-\(run).sqlite")
            let shelfPath = folder.appendingPathComponent("wal-shelf-\(run).sqlite").path
            let live = try await store.liveItems(matching: ItemQuery(), limit: 50)
            var largest = 0
            let shelfTime = try await time {
                for index in 0..<writes {
                    _ = try await store.items.insert(NewItem(userID: User.ID(1), title: "write \(index)"))
                    if index % 100 == 0 { largest = max(largest, walSize(shelfPath)) }
                }
            }
            withExtendedLifetime(live) {}
            shelfLargest.append(Double(max(largest, walSize(shelfPath))) / 1e6)
            shelfEnd.append(Double(walSize(shelfPath)) / 1e6)
            shelfRate.append(Double(writes) / shelfTime)

            let rawPath = folder.appendingPathComponent("wal-raw-\(run).sqlite").path
            _ = try await makeStore(in: folder, name: "wal-raw-\(run).sqlite")
            let raw = RawConnection(path: rawPath)
            let statement = raw.prepare(Self.insertSQL)
            var rawSeen = 0
            let rawTime = time {
                for index in 0..<writes {
                    sqlite3_bind_int64(statement, 1, 1)
                    bindText(statement, 2, "write \(index)")
                    sqlite3_bind_null(statement, 3)
                    bindText(statement, 4, "open")
                    sqlite3_bind_int64(statement, 5, 0)
                    sqlite3_bind_int64(statement, 6, 0)
                    sqlite3_bind_int64(statement, 7, 0)
                    guard sqlite3_step(statement) == SQLITE_DONE else {
                        fatalError(String(cString: sqlite3_errmsg(raw.handle)))
                    }
                    sqlite3_reset(statement)
                    if index % 100 == 0 { rawSeen = max(rawSeen, walSize(rawPath)) }
                }
            }
            sqlite3_finalize(statement)
            rawLargest.append(Double(max(rawSeen, walSize(rawPath))) / 1e6)
            rawEnd.append(Double(walSize(rawPath)) / 1e6)
            rawRate.append(Double(writes) / rawTime)
        }
        report.compare(
            "store.wal_largest", unit: "MB", shelf: shelfLargest,
            against: [("raw-c-autocheckpoint", rawLargest, "bounded (<= 17 MB)")])
        report.compare("store.wal_end", unit: "MB", shelf: shelfEnd, against: [("raw-c-autocheckpoint", rawEnd, "")])
        report.compare(
            "store.one_row_writes", unit: "writes/s", shelf: shelfRate,
            against: [("raw-c-autocheckpoint", rawRate, "(shelf also runs a live query)")])
    }

    private func walSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }
}
