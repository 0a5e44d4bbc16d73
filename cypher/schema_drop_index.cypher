// Placeholder: {index}. Drops an index graphanon no longer uses (the single-property
// release_id indexes of uid-keyed labels, covered by the composite (release_id, uid) index;
// the sample loaders' lookup indexes, replaced by uniqueness constraints).
DROP INDEX {index} IF EXISTS
