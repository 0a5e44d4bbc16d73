// Placeholder: {label}. The id is the business-key property $id_property, or elementId(n)
// when it is null (never the deprecated id()). $properties: property names to carry along.
MATCH (n:{label})
RETURN CASE WHEN $id_property IS NULL THEN elementId(n) ELSE n[$id_property] END AS id,
       [key IN $properties | n[key]] AS properties
