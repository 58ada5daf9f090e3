-- The database batch of scripts/validate-replay.sh: 200000 rows, two indexes, a grouped
-- query and a join, in an in-memory sqlite3 database.
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, payload BLOB);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 200000)
INSERT INTO t SELECT x, printf('name-%d-%s', x, hex(randomblob(8))), x % 97, randomblob(x % 300) FROM c;
CREATE INDEX t_name ON t(name);
CREATE INDEX t_grp ON t(grp, name);
SELECT grp, count(*), sum(length(payload)), max(name) FROM t GROUP BY grp ORDER BY 2 DESC LIMIT 3;
SELECT count(*) FROM t a JOIN t b ON a.grp = b.id WHERE a.name LIKE 'name-1%';
