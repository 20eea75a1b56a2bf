-- Which intervals each stored frame carried: (thread, idx) of each, 12 bytes apiece (a big-endian int and bigint),
-- written with the frame's run_frame row. A live watch on a controller that did not store the frame (issue 38:
-- several controllers, one database) reads a frame's intervals by these keys through run_interval's primary key,
-- and so shows each frame as the controller that stored it did. Frames stored before this release have none (NULL).
-- A nullable column without a default changes the catalog only: no row is rewritten.
ALTER TABLE run_frame ADD COLUMN interval_keys BYTEA;
