"""Imported IBMQREP_CAPMON, IBMQREP_CAPQMON and IBMQREP_APPLYMON exports: layouts, cells, formats, the importer."""
