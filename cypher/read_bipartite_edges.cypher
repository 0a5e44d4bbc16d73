// Placeholders: {user_label}, {rel_type}, {feature_label}. Direction ignored.
MATCH (u:{user_label})-[:{rel_type}]-(f:{feature_label})
RETURN CASE WHEN $user_id_property IS NULL THEN elementId(u) ELSE u[$user_id_property] END
         AS user,
       CASE WHEN $feature_id_property IS NULL THEN elementId(f) ELSE f[$feature_id_property] END
         AS feature
