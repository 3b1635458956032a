// ShelfPostgres: the PostgreSQL backend of `Store`. Built only with the PostgreSQL package
// trait (`swift build --traits PostgreSQL`); without it this module is empty.
