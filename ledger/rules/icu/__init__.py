"""The Irish Chess Union rating calculations as published in 2005 ("icu-2005")."""
